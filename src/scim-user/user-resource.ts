import { canonicalEmailAddress, emailAddressProblem, isEmailAddress } from '../validation/email.ts';
import { nulAt } from '../validation/nul-character.ts';
import {
  type AttributeDef,
  ENTERPRISE_SCHEMA,
  enterpriseAttributes,
  findAttribute,
  ignoredMembers,
  isSchemaUrn,
  USER_SCHEMA,
  userAttributes,
} from './schema.ts';
import { isCoreSchema, userBodyMembers } from './schema-urns.ts';
import { ScimError } from './scim-error.ts';

const MAX_STRING = 1024;
const MAX_VALUES = 100;
/** An extension the server has no schema for is kept as sent, within this size. */
const MAX_EXTENSION_BYTES = 16_384;
/** Extension schemas (besides the Enterprise one) one User may hold. */
const MAX_EXTENSIONS = 10;
/**
 * The whole User's attributes, serialised as stored: without it, per-value and per-extension
 * limits still let one User grow without bound (many extensions, many long values).
 */
const MAX_USER_BYTES = 65_536;

type Attributes = Record<string, unknown>;

/**
 * Checks a User resource (a POST or PUT body, or the result of a PATCH) against the schema and
 * returns its attributes in canonical form: names as the schema spells them, null and empty
 * values dropped (RFC 7643 §2.5: unassigned), string booleans ("True", Entra) made booleans,
 * bare Enterprise attributes (Entra's top-level `department`, `manager`) moved into their
 * extension, read-only members and `password` dropped. Unknown attributes are refused.
 */
export function normaliseUser(body: unknown): Attributes {
  if (!isObject(body)) throw new ScimError('invalidSyntax', 'body: must be a JSON object (a SCIM User resource)');
  // PostgreSQL's text and JSONB cannot hold U+0000 (it would fail there, a 500, where SQLite stored it).
  const nul = nulAt(body);
  if (nul !== undefined) throw new ScimError('invalidValue', `${attributePath(nul)}: must not contain the NUL character (U+0000)`);
  if ('schemas' in body && (!Array.isArray(body.schemas) || !body.schemas.every((s) => typeof s === 'string'))) {
    throw new ScimError('invalidSyntax', 'schemas: must be an array of schema URNs');
  }
  const out: Attributes = {};
  for (const [key, value] of userBodyMembers(body)) {
    if (ignoredMembers.has(key)) continue;
    // Never kept as an extension: it is the User itself (only nested in itself does it get here).
    if (isCoreSchema(key)) throw new ScimError('invalidSyntax', `${USER_SCHEMA}: holds the User's attributes and cannot be nested in itself`);
    if (key.toLowerCase() === ENTERPRISE_SCHEMA.toLowerCase()) {
      if (value === null) continue;
      if (!isObject(value)) throw new ScimError('invalidValue', `${ENTERPRISE_SCHEMA}: must be an object`);
      const ext = complex(ENTERPRISE_SCHEMA, value, enterpriseAttributes);
      if (Object.keys(ext).length > 0) out[ENTERPRISE_SCHEMA] = { ...(out[ENTERPRISE_SCHEMA] as object), ...ext };
      continue;
    }
    const def = findAttribute(userAttributes, key);
    if (def) {
      const v = attribute(def.name, def, value);
      if (v !== undefined && def.returned !== 'never' && def.mutability !== 'readOnly') out[def.name] = v;
      continue;
    }
    const enterprise = findAttribute(enterpriseAttributes, key);
    if (enterprise) {
      const v = attribute(enterprise.name, enterprise, value);
      if (v !== undefined) out[ENTERPRISE_SCHEMA] = { ...(out[ENTERPRISE_SCHEMA] as object), [enterprise.name]: v };
      continue;
    }
    if (isSchemaUrn(key) && isObject(value)) {
      if (JSON.stringify(value).length > MAX_EXTENSION_BYTES) throw new ScimError('invalidValue', `${key}: is larger than ${MAX_EXTENSION_BYTES} bytes`);
      out[key] = value;
      continue;
    }
    if (isSchemaUrn(key) && value === null) continue;
    throw new ScimError('invalidSyntax', `${key}: is not an attribute of the User schema (${USER_SCHEMA}) or its Enterprise extension`);
  }
  if (typeof out.userName !== 'string') throw new ScimError('invalidValue', 'userName: is required (a non-empty string)');
  checkEmailValues(out.emails);
  // `active` left out stays out: what its absence means depends on the identity's past (identityFields).
  checkSize(out);
  return out;
}

/**
 * Bounds on the User as a whole, for POST, PUT and a PATCH's result alike. invalidValue, not
 * tooMany: RFC 7644 §3.12 keeps tooMany for a filter that yields too many results, and
 * invalidValue is its error for a value the resource cannot hold; 413 is for request bodies,
 * while a PATCH of a few bytes can push a stored User past this.
 */
function checkSize(user: Attributes): void {
  const extensions = Object.keys(user).filter((key) => isSchemaUrn(key) && key !== ENTERPRISE_SCHEMA).length;
  if (extensions > MAX_EXTENSIONS) {
    throw new ScimError(
      'invalidValue',
      `schemas: a User may hold at most ${MAX_EXTENSIONS} extension schemas besides the Enterprise one (this one would hold ${extensions})`,
    );
  }
  const bytes = Buffer.byteLength(JSON.stringify(user));
  if (bytes > MAX_USER_BYTES) {
    throw new ScimError(
      'invalidValue',
      `body: the User's attributes must be at most 64 KiB (${MAX_USER_BYTES} bytes) once serialised; this one would be ${bytes}`,
    );
  }
}

/**
 * Every `emails[].value` must be exactly one address by the rules persons' email handles follow
 * (validation/email.ts), checked on its canonical form and kept as sent. A mailer reads a
 * list ("a@x.example, b@y.example"), a display name ('"a@x.example" <b@y.example>') or a line
 * break as more than one recipient or as a header, so the code would go elsewhere. Every
 * write (POST, PUT, and PATCH, whose result comes here) passes this.
 */
function checkEmailValues(emails: unknown): void {
  if (!Array.isArray(emails)) return;
  emails.forEach((email: Attributes, i) => {
    if (typeof email.value !== 'string') return;
    const problem = emailAddressProblem(canonicalEmailAddress(email.value));
    if (problem) throw new ScimError('invalidValue', `emails[${i}].value: ${problem}; exactly one address, no list, display name or line break`);
  });
}

/** The value when it is exactly one acceptable email address, else null: never a raw string a mailer could misread. */
export function usableEmail(value: unknown): string | null {
  return typeof value === 'string' && isEmailAddress(value) ? value : null;
}

function attribute(at: string, def: AttributeDef, value: unknown): unknown {
  if (value === null) return undefined;
  if (def.multiValued) {
    const list = Array.isArray(value) ? value : [value];
    if (list.length > MAX_VALUES) throw new ScimError('invalidValue', `${at}: must have at most ${MAX_VALUES} values`);
    const items = list.map((item, i) => single(`${at}[${i}]`, def, item)).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  // Entra sends the single-valued `manager` as a one-element array (fixtures, quirk E8).
  if (Array.isArray(value) && value.length === 1 && def.type === 'complex') return single(at, def, value[0]);
  return single(at, def, value);
}

function single(at: string, def: AttributeDef, value: unknown): unknown {
  if (value === null) return undefined;
  switch (def.type) {
    case 'boolean':
      if (typeof value === 'boolean') return value;
      // Entra's default disable sends "False" (fixtures, quirk E2).
      if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
      throw new ScimError('invalidValue', `${at}: must be a boolean`);
    case 'complex': {
      if (!isObject(value)) throw new ScimError('invalidValue', `${at}: must be an object`);
      const parts = complex(at, value, def.subAttributes ?? []);
      return Object.keys(parts).length > 0 ? parts : undefined;
    }
    default: {
      if (typeof value !== 'string') throw new ScimError('invalidValue', `${at}: must be a string`);
      const max = def.maxLength ?? MAX_STRING;
      if (value.length > max) throw new ScimError('invalidValue', `${at}: must be at most ${max} characters`);
      if (def.required && value.trim() === '') throw new ScimError('invalidValue', `${at}: must not be empty`);
      return value;
    }
  }
}

function complex(at: string, value: Attributes, subs: readonly AttributeDef[]): Attributes {
  const out: Attributes = {};
  for (const [key, v] of Object.entries(value)) {
    const sub = findAttribute(subs, key);
    if (!sub) throw new ScimError('invalidSyntax', `${at}.${key}: is not a sub-attribute of ${at}`);
    const normal = sub.type === 'complex' ? attribute(`${at}.${sub.name}`, sub, v) : single(`${at}.${sub.name}`, sub, v);
    if (normal !== undefined) out[sub.name] = normal;
  }
  return out;
}

/** `/emails/0/value` as SCIM names it: `emails[0].value`. */
function attributePath(pointer: string): string {
  const segments = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  return segments.reduce((path, s) => (/^\d+$/.test(s) ? `${path}[${s}]` : path ? `${path}.${s}` : s), '');
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The columns of a stored identity (store/identities/store.ts's Identity) that its attributes decide. */
export interface IdentityFields {
  userName: string;
  externalId: string | null;
  /** The work email, else the primary one, else the first; as sent (case kept). */
  email: string | null;
  /** As verification reads it: the `active` sent, or what its absence means (see Identity.deactivatedAt). */
  active: boolean;
  displayName: string | null;
}

/**
 * What the store lifts out of the attributes: the fields verification and filters read.
 * `active` left out (never sent, or removed by `replace` with null, RFC 7644 §3.5.2) is true
 * only for an identity never deactivated: removing it from a deactivated user must not reactivate it.
 */
export function identityFields(attributes: Attributes, deactivatedBefore = false): IdentityFields {
  const emails = (attributes.emails as { value?: string; type?: string; primary?: boolean }[] | undefined)?.filter((e) => typeof e.value === 'string') ?? [];
  const email = emails.find((e) => e.type?.toLowerCase() === 'work') ?? emails.find((e) => e.primary === true) ?? emails[0];
  const name = attributes.name as Record<string, string> | undefined;
  const joined = [name?.givenName, name?.familyName].filter(Boolean).join(' ');
  return {
    userName: attributes.userName as string,
    externalId: (attributes.externalId as string | undefined) ?? null,
    // The chosen email or none: an unusable work email never falls back to another one.
    email: usableEmail(email?.value),
    active: typeof attributes.active === 'boolean' ? attributes.active : !deactivatedBefore,
    displayName: (attributes.displayName as string | undefined) || name?.formatted || joined || null,
  };
}
