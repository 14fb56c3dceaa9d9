import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { apiKeyOperator, operatorFields } from '../audit/admin-events.ts';
import { ApiError, personNotFound } from '../errors/api-error.ts';
import { commonErrors, Envelope, ListEnvelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { listResponse, PageQuery, pageRequest } from '../http/pagination.ts';
import { validatorCompiler } from '../http/validation.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { AuthnAttemptStore } from '../store/authn/store.ts';
import type { Credential, CredentialStore } from '../store/credentials/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { checkCredentialLabel, createPersonCredential, rethrowPasskeyTaken } from './create-credential.ts';
import type { CredentialType, CredentialTypeContext } from './credential-type.ts';
import { deletePersonCredential } from './delete-credential.ts';
import { presentCredential } from './operations.ts';
import { credentialBodyValidator, credentialRequestSchema, credentialViewSchema } from './routes-schemas.ts';

const Id = Type.String({ minLength: 1, maxLength: 64 });
const PersonParams = Type.Object({ person_id: Id });
const CredentialParams = Type.Object({ person_id: Id, credential_id: Id });

interface CreateBody {
  type: string;
  params: unknown;
  label?: string;
}

export interface CredentialRouteOptions {
  types: readonly CredentialType[];
  context: CredentialTypeContext;
  now: () => number;
}

type CredentialRouteStore = CredentialStore & PersonStore & OrganizationStore & AuditStore & AuthnAttemptStore & TransactionalStore;

/**
 * POST, GET and DELETE /persons/{person_id}/credentials (admin key). The routes choose a
 * type by `type` and leave `params` to it: the type validates (schema, then `prepare`), says
 * what to store and what to show; the routes never look inside either.
 */
export function credentialRoutes(store: CredentialRouteStore, { types, context, now }: CredentialRouteOptions): FastifyPluginAsyncTypebox {
  const byName = new Map(types.map((type) => [type.type as string, type]));
  const present = (credential: Credential) => presentCredential(byName.get(credential.type), credential);
  const View = credentialViewSchema(types);

  return async (app) => {
    app.addHook('onRequest', requireApiKey(store, ['admin']));
    const tags = ['credentials'];
    const security = [{ orgId: [], apiKey: [] }];
    const bodyValidator = credentialBodyValidator(types);

    app.post(
      '/persons/:person_id/credentials',
      {
        schema: {
          tags,
          security,
          summary: 'Create a credential of a person',
          params: PersonParams,
          body: credentialRequestSchema(types),
          response: { 201: Envelope(View), ...commonErrors },
        },
        validatorCompiler: (route) => (route.httpPart === 'body' ? bodyValidator(route) : validatorCompiler(route)),
      },
      async (request, reply) => {
        const { org } = tenantOf(request);
        const personId = request.params.person_id;
        const body = request.body as CreateBody;
        checkCredentialLabel(body.label);
        if (!(await store.getPerson(org.id, personId))) throw personNotFound();
        // The body validator admitted only registered types.
        const type = byName.get(body.type) as CredentialType;
        // Bad params throw invalidField here, before anything is stored.
        const prepared = await type.prepare(body.params, context);
        const credential = await createPersonCredential(store, context.hashCode, {
          orgId: org.id,
          personId,
          type: type.type,
          label: body.label ?? null,
          prepared,
          audit: operatorFields(apiKeyOperator(request)),
          at: now(),
          ...(type.onePerPerson ? { unlessHolding: { types: [type.type], refusal: () => alreadyHolding(type.type) } } : {}),
        }).catch(rethrowPasskeyTaken('body.params.webauthn_credential_id'));
        if (!credential) throw personNotFound();
        return reply.code(201).send({ result: present(credential) });
      },
    );

    app.get(
      '/persons/:person_id/credentials',
      {
        schema: {
          tags,
          security,
          summary: "List a person's credentials",
          params: PersonParams,
          querystring: PageQuery,
          response: { 200: ListEnvelope(View), ...commonErrors },
        },
      },
      async (request) => {
        const orgId = tenantOf(request).org.id;
        if (!(await store.getPerson(orgId, request.params.person_id))) throw personNotFound();
        const page = await store.listCredentials(orgId, request.params.person_id, pageRequest('credentials', request.query));
        return listResponse('credentials', request.query.limit, page, present);
      },
    );

    app.delete(
      '/persons/:person_id/credentials/:credential_id',
      {
        schema: { tags, security, summary: 'Delete a credential of a person', params: CredentialParams, response: { 204: Type.Null(), ...commonErrors } },
      },
      async (request, reply) => {
        const { org } = tenantOf(request);
        const { person_id: personId, credential_id: credentialId } = request.params;
        if (!(await store.getPerson(org.id, personId))) throw personNotFound();
        await deletePersonCredential(store, { orgId: org.id, personId, credentialId, audit: operatorFields(apiKeyOperator(request)), at: now() });
        return reply.code(204).send(null);
      },
    );
  };
}

function alreadyHolding(type: string): ApiError {
  return new ApiError(
    'CONFLICT',
    `body.type: the person already has a ${type} credential, and may hold one; delete it first (DELETE /persons/{person_id}/credentials/{credential_id})`,
  );
}
