import { type PatchTarget, parsePatchPath } from './patch-path.ts';
import { type AttributeDef, findAttribute, USER_SCHEMA } from './schema.ts';
import { namesWholeSchema } from './schema-urns.ts';
import { ScimError } from './scim-error.ts';
import { isObject, normaliseUser } from './user-resource.ts';

export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const MAX_OPERATIONS = 100;

type Op = 'add' | 'replace' | 'remove';
type Doc = Record<string, unknown>;

export interface PatchOperation {
  op: Op;
  path?: string;
  value?: unknown;
}

/** Reads a PatchOp body: `op` case-insensitive (Entra sends "Replace", fixtures E1); nothing else unknown. */
export function parsePatchBody(body: unknown): PatchOperation[] {
  if (!isObject(body)) throw new ScimError('invalidSyntax', 'body: must be a JSON object (a PatchOp)');
  for (const key of Object.keys(body)) {
    if (key !== 'schemas' && key !== 'Operations') throw new ScimError('invalidSyntax', `${key}: is not a member of a PatchOp`);
  }
  if ('schemas' in body && (!Array.isArray(body.schemas) || !body.schemas.includes(PATCH_SCHEMA))) {
    throw new ScimError('invalidSyntax', `schemas: must be ["${PATCH_SCHEMA}"]`);
  }
  const ops = body.Operations;
  if (!Array.isArray(ops) || ops.length === 0) throw new ScimError('invalidSyntax', 'Operations: must be a non-empty array');
  if (ops.length > MAX_OPERATIONS) throw new ScimError('invalidSyntax', `Operations: must have at most ${MAX_OPERATIONS} operations`);
  return ops.map((raw, i) => {
    const at = `Operations[${i}]`;
    if (!isObject(raw)) throw new ScimError('invalidSyntax', `${at}: must be an object`);
    for (const key of Object.keys(raw)) {
      if (!['op', 'path', 'value'].includes(key)) throw new ScimError('invalidSyntax', `${at}.${key}: is not a member of a PATCH operation`);
    }
    const op = typeof raw.op === 'string' ? raw.op.toLowerCase() : undefined;
    if (op !== 'add' && op !== 'replace' && op !== 'remove') throw new ScimError('invalidSyntax', `${at}.op: must be add, replace or remove`);
    if (raw.path !== undefined && (typeof raw.path !== 'string' || raw.path === ''))
      throw new ScimError('invalidPath', `${at}.path: must be a non-empty string`);
    if (op !== 'remove' && !('value' in raw)) throw new ScimError('invalidValue', `${at}.value: is required for ${op}`);
    return { op, ...(raw.path === undefined ? {} : { path: raw.path as string }), ...('value' in raw ? { value: raw.value } : {}) };
  });
}

/**
 * Applies the operations to a copy of the stored attributes and checks the result as a whole
 * User (normaliseUser), so every dialect ends in the same canonical form, or nothing changes.
 */
export function applyPatch(attributes: Doc, operations: readonly PatchOperation[]): Doc {
  const doc = structuredClone(attributes);
  for (const operation of operations) {
    // Path-less (Okta's {"op":"replace","value":{"active":false}}, Entra's flag form with
    // dotted keys such as "name.givenName", fixtures E6/O5) is the whole User as target.
    if (operation.path === undefined && operation.op === 'remove') throw new ScimError('noTarget', 'path: is required for remove');
    apply(doc, operation.op, operation.path === undefined ? { container: 'core' } : parsePatchPath(operation.path), operation.value);
  }
  return normaliseUser(doc);
}

/**
 * A value object addressed to the whole User: each key is itself a path, in any form a path may
 * take (short, dotted, fully qualified, filtered), and a key naming a whole schema holds that
 * schema's attributes, each applied as `<schema URN>:<attribute>`.
 */
function applyMembers(doc: Doc, op: Op, value: unknown): void {
  if (!isObject(value)) throw new ScimError('invalidValue', 'value: must be an object of attribute paths when path is omitted or names the User schema');
  for (const [key, member] of Object.entries(value)) {
    if (['id', 'meta', 'schemas'].includes(key.toLowerCase())) continue;
    if (namesWholeSchema(key) && isObject(member)) {
      for (const [name, v] of Object.entries(member)) apply(doc, op, parsePatchPath(`${key}:${name}`), v);
    } else {
      apply(doc, op, parsePatchPath(key), member);
    }
  }
}

function apply(doc: Doc, op: Op, target: PatchTarget, value: unknown): void {
  if (target.container === 'core' && target.attribute === undefined) {
    if (op === 'remove') throw new ScimError('invalidPath', `path: ${USER_SCHEMA} names the whole User; name an attribute to remove`);
    applyMembers(doc, op, value);
    return;
  }
  if (target.container !== 'core' && !isObject(doc[target.container])) doc[target.container] = {};
  const holder = (target.container === 'core' ? doc : doc[target.container]) as Doc;
  if (target.attribute === undefined) {
    // The whole extension object.
    if (op === 'remove') delete doc[target.container];
    else if (!isObject(value)) throw new ScimError('invalidValue', `value: must be an object for ${target.container}`);
    else Object.assign(holder, value);
    return;
  }
  const name = target.attribute;
  if (target.filter) {
    applyFiltered(holder, op, target, value);
    return;
  }
  if (target.sub) {
    if (op === 'remove') {
      if (isObject(holder[name])) delete (holder[name] as Doc)[target.sub];
    } else {
      holder[name] = { ...(isObject(holder[name]) ? holder[name] : {}), [target.sub]: value };
    }
    return;
  }
  if (op === 'remove') {
    delete holder[name];
  } else if (target.def?.multiValued) {
    const values = Array.isArray(value) ? value : [value];
    holder[name] = op === 'add' && Array.isArray(holder[name]) ? [...(holder[name] as unknown[]), ...values] : values;
  } else {
    // Entra sends the single-valued `manager` as a one-element array (fixtures E8).
    const single = Array.isArray(value) && value.length === 1 && target.def?.type === 'complex' ? value[0] : value;
    // A complex value merges into the existing one (RFC 7644 §3.5.2.1 and .3).
    holder[name] = isObject(single) && isObject(holder[name]) ? { ...holder[name], ...canonicalKeys(single, target.def) } : single;
  }
}

/** `emails[type eq "work"].value`: change the selected values; add one when none is selected. */
function applyFiltered(holder: Doc, op: Op, target: PatchTarget, value: unknown): void {
  const name = target.attribute!;
  const { sub, value: wanted } = target.filter!;
  const items = (Array.isArray(holder[name]) ? holder[name] : []) as unknown[];
  const selected = (item: unknown) => isObject(item) && String(item[sub]).toLowerCase() === wanted.toLowerCase();
  if (op === 'remove') {
    holder[name] = target.sub ? items.map((item) => (selected(item) ? omit(item as Doc, target.sub!) : item)) : items.filter((item) => !selected(item));
    return;
  }
  const replacement = (item: Doc): Doc =>
    target.sub ? { ...item, [target.sub]: value } : isObject(value) ? { ...item, ...canonicalKeys(value, target.def) } : item;
  if (!target.sub && value === null) {
    holder[name] = items.filter((item) => !selected(item));
    return;
  }
  if (!target.sub && !isObject(value)) throw new ScimError('invalidValue', `value: must be an object for ${name}[${sub} eq "${wanted}"]`);
  if (items.some(selected)) holder[name] = items.map((item) => (selected(item) ? replacement(item as Doc) : item));
  // null is no value (RFC 7644 §3.5.2): it removes from what is selected, and adds nothing.
  else if (value !== null) holder[name] = [...items, replacement({ [sub]: wanted })];
}

function omit(item: Doc, key: string): Doc {
  const { [key]: _, ...rest } = item;
  return rest;
}

/**
 * Sub-attribute names as the schema spells them, so that a merge replaces `familyName` when
 * `familyname` is sent (RFC 7643 §2.1: names are case-insensitive) instead of keeping both.
 */
function canonicalKeys(value: Doc, def: AttributeDef | undefined): Doc {
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [findAttribute(def?.subAttributes, key)?.name ?? key, v]));
}
