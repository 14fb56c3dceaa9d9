import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { nulAt } from '../validation/nul-character.ts';
import { unsafeCharacterProblem } from '../validation/unsafe-characters.ts';

// ajv-formats ships CommonJS with a default export that TypeScript sees one level deep.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/**
 * Bodies are validated strictly: no type coercion and unknown fields refused rather than
 * silently dropped, so a typo never passes for a default. Path, query and header values
 * arrive as strings, so those are coerced to the schema's types.
 */
const strict = addFormats(new Ajv({ allErrors: true, coerceTypes: false, removeAdditional: false, useDefaults: true, strict: false }));
const coercing = addFormats(new Ajv({ allErrors: true, coerceTypes: true, removeAdditional: false, useDefaults: true, strict: false }));

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  refusingNul((httpPart === 'body' ? strict : coercing).compile(schema));

/** Worded as the fields with a character rule of their own (handles, labels) word it for U+0000. */
const NUL_MESSAGE = unsafeCharacterProblem('\u0000')!;

/**
 * A value that passed the schema is also refused when a string or a member name in it holds
 * U+0000: PostgreSQL text and JSONB cannot store that character, so it would fail there (a 500)
 * while SQLite stored it. No field of the API has a use for it.
 */
function refusingNul(validate: ValidateFunction): ValidateFunction {
  const check = ((data: unknown, context?: Parameters<ValidateFunction>[1]) => {
    if (!validate(data, context)) {
      check.errors = validate.errors;
      return false;
    }
    const at = nulAt(data);
    check.errors = at === undefined ? null : [{ keyword: 'nul', instancePath: at, schemaPath: '#', params: {}, message: NUL_MESSAGE }];
    return at === undefined;
  }) as ValidateFunction;
  // fastify passes the parent along only to validators that carry ajv's schemaEnv.
  return Object.assign(check, { schema: validate.schema, schemaEnv: validate.schemaEnv });
}

const partNames: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** Turns ajv's errors into messages that name the field (`body.handles[0].type`) and the rule. */
export function describeValidationErrors(context: string, errors: readonly ErrorObject[]): string[] {
  const messages = errors.filter((e) => e.keyword !== 'propertyNames' && e.keyword !== 'if').map((e) => describe(partNames[context] ?? context, e));
  return [...new Set(messages)].slice(0, 10);
}

function describe(part: string, error: ErrorObject): string {
  const at = fieldPath(part, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${at}.${String(params.missingProperty)}: is required`;
    case 'additionalProperties':
      return `${at}.${String(params.additionalProperty)}: is not a known field`;
    case 'type':
      return `${at}: must be ${withArticle(String(params.type))}`;
    case 'enum':
      return `${at}: must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'pattern':
      // Inside propertyNames, ajv names the offending key on the error itself.
      return error.propertyName !== undefined
        ? `${at}: key "${error.propertyName}" must match ${String(params.pattern)}`
        : `${at}: must match ${String(params.pattern)}`;
    case 'uniqueItems':
      return `${at}: must not repeat an item (items ${String(params.j)} and ${String(params.i)} are equal)`;
    default:
      return `${at}: ${error.message ?? 'is invalid'}`;
  }
}

function fieldPath(part: string, pointer: string): string {
  if (!pointer) return part;
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : `${path}.${segment}`), part);
}

function withArticle(type: string): string {
  const name = type.replace(/,/g, ' or ');
  return /^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`;
}
