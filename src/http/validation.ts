import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

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
  (httpPart === 'body' ? strict : coercing).compile(schema) as ValidateFunction;

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
