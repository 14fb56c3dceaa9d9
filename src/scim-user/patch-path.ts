import { comparisonValue, tokenize } from './filter-tokens.ts';
import { type AttributeDef, ENTERPRISE_SCHEMA, enterpriseAttributes, findAttribute, isSchemaUrn, USER_SCHEMA, userAttributes } from './schema.ts';
import { ScimError } from './scim-error.ts';

/** A PATCH path resolved against the schema (RFC 7644 §3.5.2 `attrPath [valFilter] [.subAttr]`). */
export interface PatchTarget {
  /** Where the attribute lives: the resource itself, or an extension's object in it. */
  container: 'core' | string;
  /** Canonical attribute name; undefined when the path names a whole schema (an extension, or the core one). */
  attribute?: string;
  def?: AttributeDef;
  /** `emails[type eq "work"]`: the sub-attribute and value the selected values have. */
  filter?: { sub: string; value: string };
  sub?: string;
}

const PATH = /^([A-Za-z$][\w$-]*)(\[[^\]]*\])?(?:\.([A-Za-z$][\w$-]*))?$/;

/** Read-only or server-assigned: a PATCH that names them is refused, not ignored. */
const immutable = new Set(['id', 'meta', 'groups', 'schemas']);

export function parsePatchPath(path: string): PatchTarget {
  if (path.length > 512) throw new ScimError('invalidPath', 'path: is longer than 512 characters');
  let container = 'core';
  let rest = path;
  const lower = path.toLowerCase();
  // The core schema URN qualifies core attributes (RFC 7644 §3.10); it is never an extension.
  if (lower === USER_SCHEMA.toLowerCase()) return { container: 'core' };
  const qualified = lower.startsWith(`${USER_SCHEMA.toLowerCase()}:`);
  if (qualified) {
    rest = path.slice(USER_SCHEMA.length + 1);
  } else if (lower.startsWith('urn:')) {
    if (lower === ENTERPRISE_SCHEMA.toLowerCase()) return { container: ENTERPRISE_SCHEMA };
    if (lower.startsWith(`${ENTERPRISE_SCHEMA.toLowerCase()}:`)) {
      container = ENTERPRISE_SCHEMA;
      rest = path.slice(ENTERPRISE_SCHEMA.length + 1);
    } else {
      // Another extension: the schema URN is everything before the last colon outside brackets.
      const bracket = path.indexOf('[');
      const cut = path.lastIndexOf(':', bracket < 0 ? undefined : bracket);
      if (!isSchemaUrn(path.slice(0, cut))) throw new ScimError('invalidPath', `path: ${path} is not an attribute path`);
      if (/^[A-Za-z$]/.test(path.slice(cut + 1)) === false) return { container: path };
      container = path.slice(0, cut);
      rest = path.slice(cut + 1);
    }
  }
  const match = PATH.exec(rest);
  if (!match) throw new ScimError('invalidPath', `path: ${path} is not an attribute path`);
  const [, name, bracketed, sub] = match as unknown as [string, string, string | undefined, string | undefined];
  if (container === 'core' && immutable.has(name.toLowerCase())) throw new ScimError('mutability', `path: ${name} is read-only`);

  // Unknown extensions have no schema: their members are taken as named.
  if (container !== 'core' && container !== ENTERPRISE_SCHEMA) {
    return { container, attribute: name, ...(sub ? { sub } : {}), ...(bracketed ? { filter: valueFilter(path, bracketed) } : {}) };
  }
  // Entra names Enterprise attributes bare (`manager`, fixtures E8): look there second.
  let def = findAttribute(container === 'core' ? userAttributes : enterpriseAttributes, name);
  if (!def && container === 'core' && !qualified) {
    def = findAttribute(enterpriseAttributes, name);
    if (def) container = ENTERPRISE_SCHEMA;
  }
  if (!def) throw new ScimError('invalidPath', `path: ${name} is not an attribute of the User schema`);
  const target: PatchTarget = { container, attribute: def.name, def };
  if (bracketed) {
    if (!def.multiValued) throw new ScimError('invalidPath', `path: ${def.name} is single-valued; a [filter] selects values of a multi-valued attribute`);
    target.filter = valueFilter(path, bracketed);
    if (!findAttribute(def.subAttributes, target.filter.sub)) throw new ScimError('invalidPath', `path: ${def.name} has no sub-attribute ${target.filter.sub}`);
    target.filter.sub = findAttribute(def.subAttributes, target.filter.sub)!.name;
  }
  if (sub) {
    const subDef = findAttribute(def.subAttributes, sub);
    if (!subDef) throw new ScimError('invalidPath', `path: ${def.name} has no sub-attribute ${sub}`);
    if (def.multiValued && !bracketed)
      throw new ScimError('invalidPath', `path: select values of ${def.name} with a filter, e.g. ${def.name}[type eq "work"].${subDef.name}`);
    target.sub = subDef.name;
  }
  return target;
}

/** `[type eq "work"]`: one equality, as Entra and Okta send. */
function valueFilter(path: string, bracketed: string): { sub: string; value: string } {
  const tokens = tokenize(bracketed.slice(1, -1));
  if (tokens.length !== 3 || tokens[1]!.toLowerCase() !== 'eq') {
    throw new ScimError('invalidPath', `path: ${path}: a value filter must be [subAttribute eq "value"]`);
  }
  return { sub: tokens[0]!, value: comparisonValue(tokens[2]!) };
}
