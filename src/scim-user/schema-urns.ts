import { ENTERPRISE_SCHEMA, isSchemaUrn, USER_SCHEMA } from './schema.ts';
import { ScimError } from './scim-error.ts';

/**
 * RFC 7644 §3.10: an attribute may be named fully qualified, `<schema URN>:<attribute>`, the
 * core User's attributes included. Release 11 read the core schema URN as one more extension and
 * stored what was sent under it beside the User (issue 24 item 3: a deactivation so named was
 * kept, and ignored). These say which member names are schema URNs and which are qualified
 * attribute names; URNs compare case-insensitively like attribute names (RFC 7643 §2.1).
 */
export function isCoreSchema(name: string): boolean {
  return name.toLowerCase() === USER_SCHEMA.toLowerCase();
}

/** `urn:…:core:2.0:User:active` or `urn:…:enterprise:2.0:User:department`: a qualified attribute name, not a schema. */
export function isQualifiedAttribute(name: string): boolean {
  const lower = name.toLowerCase();
  return [USER_SCHEMA, ENTERPRISE_SCHEMA].some((schema) => lower.startsWith(`${schema.toLowerCase()}:`));
}

/** A member whose name is a whole schema's URN holds that schema's attributes (`{"urn:…:User": {"active": false}}`). */
export function namesWholeSchema(name: string): boolean {
  return isSchemaUrn(name) && !isQualifiedAttribute(name);
}

/**
 * The members of a User body (POST, PUT) with the core schema spelled out of them: the members
 * of a core URN object become members of the User, `urn:…:core:2.0:User:<name>` becomes `<name>`
 * and `urn:…:enterprise:2.0:User:<name>` becomes a member of the Enterprise object. In body
 * order, so a later member wins over an earlier one naming the same attribute, as in JSON.
 */
export function userBodyMembers(body: Record<string, unknown>): [string, unknown][] {
  const members: [string, unknown][] = [];
  for (const [key, value] of Object.entries(body)) {
    if (isCoreSchema(key)) {
      if (value === null) continue;
      if (typeof value !== 'object' || Array.isArray(value)) throw new ScimError('invalidValue', `${USER_SCHEMA}: must be an object of the User's attributes`);
      members.push(...Object.entries(value as Record<string, unknown>));
    } else if (isQualifiedAttribute(key)) {
      const core = key.toLowerCase().startsWith(`${USER_SCHEMA.toLowerCase()}:`);
      const name = key.slice((core ? USER_SCHEMA : ENTERPRISE_SCHEMA).length + 1);
      members.push(core ? [name, value] : [ENTERPRISE_SCHEMA, { [name]: value }]);
    } else {
      members.push([key, value]);
    }
  }
  return members;
}
