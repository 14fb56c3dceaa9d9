import type { FastifyInstance } from 'fastify';
import { type AttributeDef, ENTERPRISE_SCHEMA, enterpriseAttributes, USER_SCHEMA, userAttributes } from '../scim-user/schema.ts';
import { ScimError } from '../scim-user/scim-error.ts';
import { SCIM_CONTENT_TYPE } from './errors.ts';
import { MAX_RESULTS } from './list-query.ts';
import { LIST_SCHEMA } from './users-routes.ts';

const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

/** RFC 7643 §7's attribute definition, from the table the server itself checks bodies with. */
function describe(def: AttributeDef): Record<string, unknown> {
  return {
    name: def.name,
    type: def.type,
    multiValued: def.multiValued,
    required: def.required ?? false,
    caseExact: def.caseExact ?? false,
    mutability: def.mutability ?? 'readWrite',
    returned: def.returned ?? 'default',
    uniqueness: def.name === 'userName' ? 'server' : 'none',
    ...(def.subAttributes ? { subAttributes: def.subAttributes.map(describe) } : {}),
  };
}

/** The discovery endpoints of RFC 7644 §4; readable without a token, they hold nothing of a tenant. */
export function discoveryRoutes(app: FastifyInstance, baseUrl: () => string): void {
  const hide = { schema: { hide: true } };
  const schemas = () =>
    [
      { schemas: [SCHEMA_SCHEMA], id: USER_SCHEMA, name: 'User', description: 'User Account', attributes: userAttributes.map(describe) },
      {
        schemas: [SCHEMA_SCHEMA],
        id: ENTERPRISE_SCHEMA,
        name: 'EnterpriseUser',
        description: 'Enterprise User',
        attributes: enterpriseAttributes.map(describe),
      },
    ].map((s) => ({ ...s, meta: { resourceType: 'Schema', location: `${baseUrl()}/Schemas/${s.id}` } }));
  const userType = () => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    schema: USER_SCHEMA,
    schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
    meta: { resourceType: 'ResourceType', location: `${baseUrl()}/ResourceTypes/User` },
  });
  const list = (resources: unknown[]) => ({
    schemas: [LIST_SCHEMA],
    totalResults: resources.length,
    itemsPerPage: resources.length,
    startIndex: 1,
    Resources: resources,
  });

  app.get('/ServiceProviderConfig', hide, async (_request, reply) =>
    reply.type(SCIM_CONTENT_TYPE).send({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      documentationUri: 'https://github.com/tessera/tessera/blob/main/docs/scim.md',
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: MAX_RESULTS },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [
        { type: 'oauthbearertoken', name: 'Bearer token', description: "The connection's scim_token in Authorization: Bearer", primary: true },
      ],
      meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl()}/ServiceProviderConfig` },
    }),
  );
  app.get('/ResourceTypes', hide, async (_request, reply) => reply.type(SCIM_CONTENT_TYPE).send(list([userType()])));
  app.get<{ Params: { id: string } }>('/ResourceTypes/:id', hide, async (request, reply) => {
    if (request.params.id !== 'User') throw new ScimError('notFound', `ResourceTypes/${request.params.id}: only User is served`);
    return reply.type(SCIM_CONTENT_TYPE).send(userType());
  });
  app.get('/Schemas', hide, async (_request, reply) => reply.type(SCIM_CONTENT_TYPE).send(list(schemas())));
  app.get<{ Params: { id: string } }>('/Schemas/:id', hide, async (request, reply) => {
    const schema = schemas().find((s) => s.id === request.params.id);
    if (!schema) throw new ScimError('notFound', `Schemas/${request.params.id}: no such schema`);
    return reply.type(SCIM_CONTENT_TYPE).send(schema);
  });
}
