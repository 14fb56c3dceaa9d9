import fc from 'fast-check';

/** The JSON Schema subset the service's OpenAPI document uses for request bodies. */
export type Schema = {
  type?: string;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  propertyNames?: { pattern?: string };
  minProperties?: number;
  maxProperties?: number;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
};

/** A body and the field a mutation broke, as the API names it (`body.handles[0].value`). */
export interface Mutated {
  body: unknown;
  field: string;
  how: string;
}

const LONG_EXTRA = 40;

/** Values valid under `schema`: what a mutation starts from, so the refusal is about the one field. */
export function validValue(schema: Schema): fc.Arbitrary<unknown> {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map(validValue));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'string':
      return validString(schema);
    case 'array':
      return validArray(schema);
    case 'object':
      return validObject(schema);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function validString(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? minLength + LONG_EXTRA, minLength + LONG_EXTRA);
  if (schema.format === 'email') return matching('^[a-z0-9]{1,20}$').map((local) => `${local}@example.com`);
  // Code points, as the validator counts a string's length.
  if (!schema.pattern)
    return fc.string({
      minLength,
      maxLength,
      unit: fc.oneof(fc.constantFrom('a', '.', '@', ' ', ':', '/', '*'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })),
    });
  return matching(schema.pattern, minLength, maxLength).filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Number.MAX_SAFE_INTEGER));
}

/**
 * Strings matching `pattern`. `^[class]+$` and `^[class]{m,n}$` are drawn char by char within
 * the length range: stringMatching alone rarely reaches a minLength, and expanding a long
 * bounded repetition costs it most of a second.
 */
function matching(pattern: string, minLength = 0, maxLength = minLength + LONG_EXTRA): fc.Arbitrary<string> {
  const repeated = /^\^(\[[^\]]+\])(?:\+|\{(\d+),(\d+)\})\$$/.exec(pattern);
  if (!repeated) return fc.stringMatching(new RegExp(pattern));
  const [, charClass, low, high] = repeated as unknown as [string, string, string | undefined, string | undefined];
  const min = Math.max(1, minLength, Number(low ?? 1));
  const max = Math.max(min, Math.min(maxLength, Number(high ?? maxLength), min + LONG_EXTRA));
  return fc.string({ minLength: min, maxLength: max, unit: fc.stringMatching(new RegExp(`^${charClass}$`)) });
}

function validArray(schema: Schema): fc.Arbitrary<unknown[]> {
  const item = validValue(schema.items ?? {});
  const minLength = schema.minItems ?? 0;
  const maxLength = Math.min(schema.maxItems ?? minLength + 3, minLength + 3);
  return schema.uniqueItems ? fc.uniqueArray(item, { minLength, maxLength, selector: (v) => JSON.stringify(v) }) : fc.array(item, { minLength, maxLength });
}

function validObject(schema: Schema): fc.Arbitrary<Record<string, unknown>> {
  const properties = schema.properties ?? {};
  const record = fc.record(Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, validValue(s)])), {
    requiredKeys: schema.required ?? [],
  }) as fc.Arbitrary<Record<string, unknown>>;
  const extra = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  const keyPattern = schema.propertyNames?.pattern;
  const withExtra = extra
    ? fc.tuple(record, fc.dictionary(keyPattern ? matching(keyPattern) : fc.string(), validValue(extra), { maxKeys: 3 })).map(([r, d]) => ({ ...d, ...r }))
    : record;
  return withExtra.filter((o) => Object.keys(o).length >= (schema.minProperties ?? 0));
}

/** A JSON value the schema refuses by its type alone (nothing of any allowed type). */
function wrongType(schema: Schema): fc.Arbitrary<unknown> | undefined {
  const allowed = new Set<string>();
  const collect = (s: Schema) => {
    for (const branch of s.anyOf ?? s.oneOf ?? []) collect(branch);
    if (s.type) allowed.add(s.type);
    if (s.enum) for (const v of s.enum) allowed.add(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  };
  collect(schema);
  if (allowed.size === 0) return undefined;
  const candidates: [string, fc.Arbitrary<unknown>][] = [
    ['null', fc.constant(null)],
    ['boolean', fc.boolean()],
    ['number', fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n))],
    ['integer', fc.integer()],
    ['string', fc.string({ maxLength: 20 })],
    ['array', fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 })],
    ['object', fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 })],
  ];
  // A whole number is also a "number"; a non-integer is not an "integer".
  const refused = candidates.filter(([type]) => !allowed.has(type) && !(type === 'integer' && allowed.has('number')));
  return refused.length > 0 ? fc.oneof(...refused.map(([, arbitrary]) => arbitrary)) : undefined;
}

/** Values of the right type that break one of the schema's own rules. */
function brokenRule(schema: Schema): fc.Arbitrary<unknown>[] {
  const out: fc.Arbitrary<unknown>[] = [];
  if (schema.anyOf || schema.oneOf) return out;
  if (schema.enum) out.push(fc.string({ maxLength: 30 }).filter((s) => !schema.enum!.includes(s)));
  if (schema.type === 'string') {
    if (schema.maxLength !== undefined && schema.maxLength < 5_000) {
      out.push(fc.integer({ min: schema.maxLength + 1, max: schema.maxLength + LONG_EXTRA }).map((n) => 'x'.repeat(n)));
    }
    if (schema.minLength) out.push(fc.string({ maxLength: schema.minLength - 1 }));
    if (schema.pattern) {
      const pattern = new RegExp(schema.pattern);
      const inRange = (s: string) => s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Number.MAX_SAFE_INTEGER);
      out.push(fc.string({ minLength: schema.minLength ?? 0, maxLength: (schema.minLength ?? 0) + 10 }).filter((s) => inRange(s) && !pattern.test(s)));
    }
  }
  if (schema.type === 'integer') {
    if (schema.minimum !== undefined) out.push(fc.integer({ min: schema.minimum - 1_000_000, max: schema.minimum - 1 }));
    if (schema.maximum !== undefined) out.push(fc.integer({ min: schema.maximum + 1, max: schema.maximum + 1_000_000 }));
  }
  if (schema.type === 'array' && schema.uniqueItems) out.push(validValue(schema.items ?? {}).map((v) => [v, v]));
  if (schema.type === 'object' && schema.minProperties) out.push(fc.constant({}));
  const keyPattern = schema.propertyNames?.pattern;
  if (schema.type === 'object' && keyPattern) {
    const key = fc.string({ maxLength: 20 }).filter((k) => !new RegExp(keyPattern).test(k));
    out.push(fc.tuple(key, validValue(typeof schema.additionalProperties === 'object' ? schema.additionalProperties : {})).map(([k, v]) => ({ [k]: v })));
  }
  return out;
}

/**
 * A body valid under `schema` but for one field: a wrong type, a broken rule, a missing
 * required member or an unknown one. `field` is where the API must say the fault is.
 */
export function mutatedBody(schema: Schema, at = 'body'): fc.Arbitrary<Mutated> {
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches?.every((b) => b.type === 'object')) return fc.oneof(...branches.map((branch) => mutatedBody(branch, at)));
  const here: fc.Arbitrary<Mutated>[] = [];
  const bad = wrongType(schema);
  if (bad) here.push(bad.map((body) => ({ body, field: at, how: 'wrong type' })));
  for (const broken of brokenRule(schema)) here.push(broken.map((body) => ({ body, field: at, how: 'broken rule' })));
  if (schema.type === 'object') here.push(...objectMutations(schema, at));
  if (schema.type === 'array' && schema.items?.type === 'object') {
    here.push(
      fc
        .tuple(validArray({ ...schema, minItems: 0 }), mutatedBody(schema.items, `${at}[0]`))
        .map(([rest, first]) => ({ body: [first.body, ...rest.slice(0, Math.max(0, (schema.maxItems ?? 10) - 1))], field: first.field, how: first.how })),
    );
  }
  return fc.oneof(...here);
}

function objectMutations(schema: Schema, at: string): fc.Arbitrary<Mutated>[] {
  const properties = schema.properties ?? {};
  const base = validObject(schema);
  const out: fc.Arbitrary<Mutated>[] = [];
  for (const [name, sub] of Object.entries(properties)) {
    out.push(
      fc
        .tuple(base, mutatedBody(sub, `${at}.${name}`))
        .map(([valid, broken]) => ({ body: { ...valid, [name]: broken.body }, field: broken.field, how: broken.how })),
    );
  }
  // A required member with a default is filled in by the validator (ajv's useDefaults), so it may be left out.
  for (const name of (schema.required ?? []).filter((n) => properties[n]?.default === undefined)) {
    out.push(base.map((valid) => ({ body: omit(valid, name), field: `${at}.${name}`, how: 'missing' })));
  }
  if (schema.additionalProperties === false) {
    const unknown = fc.stringMatching(/^[a-z_]{1,12}$/).filter((name) => !Object.hasOwn(properties, name));
    out.push(
      fc
        .tuple(base, unknown, fc.jsonValue({ maxDepth: 1 }))
        .map(([valid, name, value]) => ({ body: { ...valid, [name]: value }, field: `${at}.${name}`, how: 'unknown' })),
    );
  }
  return out;
}

function omit(object: Record<string, unknown>, name: string): Record<string, unknown> {
  const { [name]: _, ...rest } = object;
  return rest;
}
