import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { MAX_TOKEN_LIFETIME_SECONDS } from '../config/defaults.ts';
import { hashSecret, newId, newSecret } from '../crypto/ids.ts';
import { ApiError, invalidField } from '../errors/api-error.ts';
import { commonErrors, Envelope, ListEnvelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { listResponse, PageQuery, pageRequest } from '../http/pagination.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import { type ApiKey, apiKeyKinds, type OrganizationConfig } from '../store/types.ts';
import { checkOrganizationConfig } from './organization-config-rules.ts';

const ApiKeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.Enum(apiKeyKinds),
  created_at: Type.String({ format: 'date-time' }),
});
const NewApiKey = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '^\\S(.*\\S)?$', description: 'Unique within the organisation' }),
    kind: Type.Enum(apiKeyKinds, { description: 'admin manages the organisation; integration may only call /integrations/*' }),
  },
  { additionalProperties: false },
);
const CreatedApiKey = Type.Intersect([ApiKeyView, Type.Object({ api_key: Type.String({ description: 'Shown once; only its hash is stored' }) })]);

export const ConfigView = Type.Object({
  token_lifetime_ceiling: Type.Integer({ minimum: 60, maximum: MAX_TOKEN_LIFETIME_SECONDS, description: 'Seconds; no token of the organisation lives longer' }),
  svid_jwks_urls: Type.Record(Type.String(), Type.String({ maxLength: 2048 }), {
    propertyNames: { pattern: '^[a-z0-9._-]{1,255}$' },
    maxProperties: 64,
    description: 'SPIFFE trust domain → JWKS URL of its JWT-SVID keys (https; loopback http only with TESSERA_DEV=1)',
  }),
  allowed_spiffe_ids: Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 1000, uniqueItems: true }),
  email_sender: Type.Union([Type.String({ maxLength: 254 }), Type.Null()], { description: 'From address of verification emails' }),
  email_sender_name: Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
    description: "Display name of verification emails' From header and their wording (null: the organisation's name)",
  }),
  webauthn_rp_id: Type.Union([Type.String({ maxLength: 253 }), Type.Null()], {
    description: 'WebAuthn relying party id: the registrable domain passkeys are bound to (null: passkey login and registration are off)',
  }),
  webauthn_origins: Type.Array(Type.String({ maxLength: 2048 }), {
    maxItems: 20,
    uniqueItems: true,
    description: 'Origins of the pages that run WebAuthn ceremonies: https, or http for localhost only; each on webauthn_rp_id or a subdomain of it',
  }),
  webauthn_refuse_clone_warning: Type.Boolean({ description: 'Refuse a passkey login whose signature counter did not increase' }),
});
const ConfigPatch = Type.Partial(ConfigView, { additionalProperties: false, minProperties: 1 });

function presentKey(key: ApiKey) {
  return { id: key.id, name: key.name, kind: key.kind, created_at: new Date(key.createdAt).toISOString() };
}

/** Organisation-level operations; all need an admin key of the organisation. */
export function organizationRoutes(store: OrganizationStore, options: { dev: boolean }): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', requireApiKey(store, ['admin']));
    const tags = ['organizations'];
    const security = [{ orgId: [], apiKey: [] }];

    app.post(
      '/organizations/api-keys',
      {
        schema: { tags, security, summary: 'Create an API key (shown once)', body: NewApiKey, response: { 201: Envelope(CreatedApiKey), ...commonErrors } },
      },
      async (request, reply) => {
        const { org } = tenantOf(request);
        const secret = newSecret(request.body.kind === 'admin' ? 'tsk' : 'tsi');
        const key: ApiKey = {
          id: newId('key'),
          orgId: org.id,
          name: request.body.name,
          kind: request.body.kind,
          secretHash: hashSecret(secret),
          createdAt: Date.now(),
        };
        await store.createApiKey(key);
        return reply.code(201).send({ result: { ...presentKey(key), api_key: secret } });
      },
    );

    app.get(
      '/organizations/api-keys',
      {
        schema: {
          tags,
          security,
          summary: 'List API keys (never their secrets)',
          querystring: PageQuery,
          response: { 200: ListEnvelope(ApiKeyView), ...commonErrors },
        },
      },
      async (request) => {
        const page = await store.listApiKeys(tenantOf(request).org.id, pageRequest('api-keys', request.query));
        return listResponse('api-keys', request.query.limit, page, presentKey);
      },
    );

    app.delete(
      '/organizations/api-keys/:key_id',
      {
        schema: {
          tags,
          security,
          summary: 'Revoke an API key',
          params: Type.Object({ key_id: Type.String({ minLength: 1, maxLength: 64 }) }),
          response: { 204: Type.Null(), ...commonErrors },
        },
      },
      async (request, reply) => {
        const { org, key } = tenantOf(request);
        // The only key that can call this is an admin key, so refusing self-revocation also
        // guarantees an organisation is never left without an admin key.
        if (request.params.key_id === key.id) throw new ApiError('CONFLICT', 'path.key_id: is the key making this request; revoke it with another admin key');
        if (!(await store.deleteApiKey(org.id, request.params.key_id)))
          throw new ApiError('NOT_FOUND', 'path.key_id: no API key of this organisation has this id');
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/organizations/config',
      {
        schema: { tags, security, summary: "Read the organisation's configuration", response: { 200: Envelope(ConfigView), ...commonErrors } },
      },
      async (request) => ({ result: tenantOf(request).org.config }),
    );

    app.patch(
      '/organizations/config',
      {
        schema: {
          tags,
          security,
          summary: 'Change configuration fields (each given field replaces its value)',
          body: ConfigPatch,
          response: { 200: Envelope(ConfigView), ...commonErrors },
        },
      },
      async (request) => {
        const updated = await store.updateOrganizationConfig(tenantOf(request).org.id, (current) => {
          const config: OrganizationConfig = { ...current, ...request.body };
          const problem = checkOrganizationConfig(config, options);
          if (problem) throw invalidField(`body.${problem.field}`, problem.rule);
          return config;
        });
        if (!updated) throw new ApiError('ORGANIZATION_NOT_FOUND', 'header Service-OrgID: the organisation was deleted');
        return { result: updated.config };
      },
    );
  };
}
