import type { ErrorObject } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { validatorCompiler } from '../http/validation.ts';
import type { CredentialType } from './credential-type.ts';

const Label = Type.String({ minLength: 1, maxLength: 100, description: 'A name for the credential, shown back' });

/** One branch of the create request: `type` fixed to this type, its params, an optional label. */
function requestBranch(type: CredentialType): TSchema {
  return Type.Object({ type: Type.Literal(type.type), params: type.paramsSchema, label: Type.Optional(Label) }, { additionalProperties: false });
}

/** One branch of the response (spec §2.3). `params` is whatever the type's `present` returns. */
function viewBranch(type: CredentialType['type'] | string): TSchema {
  return Type.Object({
    id: Type.String(),
    last_used: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Last successful authentication; null until then' }),
    type: Type.Literal(type),
    params: Type.Object({}, { additionalProperties: true, description: 'Per type, spec §2.3' }),
    label: Type.Optional(Label),
  });
}

/** An empty oneOf is not JSON Schema; with no types enabled the documents say so instead. */
const noTypes = (what: string) =>
  Type.Object({ type: Type.String(), params: Type.Object({}) }, { description: `${what}: no credential type is enabled on this service` });

/**
 * The create request as the OpenAPI document shows it: a oneOf on `type`. Only documentation:
 * credentialBodyValidator validates it, so no serializer ever compiles the discriminator.
 */
export function credentialRequestSchema(types: readonly CredentialType[]): TSchema {
  if (types.length === 0) return noTypes('request');
  return { oneOf: types.map(requestBranch), discriminator: { propertyName: 'type' } } as unknown as TSchema;
}

/** The credential of spec §2.3 as the OpenAPI document shows it: a oneOf on `type`. */
export function credentialViewSchema(types: readonly CredentialType[]): TSchema {
  return types.length === 0 ? noTypes('response') : ({ oneOf: types.map((t) => viewBranch(t.type)) } as unknown as TSchema);
}

type Issue = Pick<ErrorObject, 'keyword' | 'instancePath' | 'params'> & { message?: string };
const refusal = (...issues: Issue[]) => ({ error: issues.map((issue) => ({ schemaPath: '#', ...issue }) as ErrorObject) });

/**
 * Validates the create request by `type` first, then against that type's branch alone, so a
 * mistake is reported once, in the chosen type's terms, rather than once per type as a plain
 * oneOf would. Errors come out as ajv's, worded like every other body error.
 */
export function credentialBodyValidator(types: readonly CredentialType[]): FastifySchemaCompiler<object> {
  const branches = new Map(
    types.map((type) => [type.type as string, validatorCompiler({ schema: requestBranch(type), httpPart: 'body', method: 'POST', url: '' })]),
  );
  const accepted = [...branches.keys()];
  return () => (body: unknown) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return refusal({ keyword: 'type', instancePath: '', params: { type: 'object' } });
    const type = (body as { type?: unknown }).type;
    if (type === undefined) return refusal({ keyword: 'required', instancePath: '', params: { missingProperty: 'type' } });
    const validate = typeof type === 'string' ? branches.get(type) : undefined;
    if (!validate) {
      if (accepted.length === 0)
        return refusal({ keyword: 'x-types', instancePath: '/type', params: {}, message: 'no credential type is enabled on this service' });
      return refusal({ keyword: 'enum', instancePath: '/type', params: { allowedValues: accepted } });
    }
    const valid = validate(body) as boolean;
    return valid ? { value: body } : { error: (validate as unknown as { errors: ErrorObject[] }).errors };
  };
}
