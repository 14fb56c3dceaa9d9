import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { apiKeyOperator } from '../audit/admin-events.ts';
import { personNotFound } from '../errors/api-error.ts';
import { commonErrors, Envelope, ListEnvelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { listResponse, pageRequest } from '../http/pagination.ts';
import type { TokenIssuer } from '../oauth/tokens/issuer.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { CredentialStore } from '../store/credentials/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { changePersonAccess, createPerson, deletePerson, newPerson, presentPerson } from './operations.ts';
import { OVER_BUDGET_LIST, overBudgetPersons } from './over-budget.ts';
import { AccessChange, NewPerson, PersonListQuery, PersonParams, PersonView } from './schemas.ts';
import { personTokenRoutes } from './token-routes.ts';

type PersonRouteStore = PersonStore & CredentialStore & OrganizationStore & AuditStore & TransactionalStore;

export interface PersonRouteOptions {
  store: PersonRouteStore;
  /** Mints person JWTs (POST /persons/{person_id}/mint-token). */
  issuer: TokenIssuer;
  /** The app's clock, which stamps what is created, generation raises, minted tokens and the audit events. */
  now: () => number;
}

/** /persons and what an admin key does to a person's standing and tokens. */
export function personRoutes({ store, issuer, now }: PersonRouteOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(personAdminRoutes(store, now));
    await app.register(personTokenRoutes(store, issuer, now));
  };
}

function personAdminRoutes(store: PersonRouteStore, now: () => number): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', requireApiKey(store, ['admin']));
    const tags = ['persons'];
    const security = [{ orgId: [], apiKey: [] }];

    app.post(
      '/persons',
      {
        schema: { tags, security, summary: 'Create a person', body: NewPerson, response: { 201: Envelope(PersonView), ...commonErrors } },
      },
      async (request, reply) => {
        const { org } = tenantOf(request);
        const person = newPerson(org.id, request.body, undefined, now());
        await createPerson(store, person, apiKeyOperator(request), person.createdAt);
        return reply.code(201).send({ result: presentPerson(person) });
      },
    );

    app.get(
      '/persons',
      {
        schema: {
          tags,
          security,
          summary: 'List persons',
          description: '`credential=over_budget` lists only the persons whose password hash is over the cost ceilings and must be reset.',
          querystring: PersonListQuery,
          response: { 200: ListEnvelope(PersonView), ...commonErrors },
        },
      },
      async (request) => {
        const orgId = tenantOf(request).org.id;
        const { credential, ...query } = request.query;
        if (credential === 'over_budget') {
          return listResponse(OVER_BUDGET_LIST, query.limit, await overBudgetPersons(store, orgId, pageRequest(OVER_BUDGET_LIST, query)), presentPerson);
        }
        const page = await store.listPersons(orgId, pageRequest('persons', query));
        return listResponse('persons', query.limit, page, presentPerson);
      },
    );

    app.get(
      '/persons/:person_id',
      {
        schema: { tags, security, summary: 'Read a person', params: PersonParams, response: { 200: Envelope(PersonView), ...commonErrors } },
      },
      async (request) => {
        const person = await store.getPerson(tenantOf(request).org.id, request.params.person_id);
        if (!person) throw personNotFound();
        return { result: presentPerson(person) };
      },
    );

    app.patch(
      '/persons/:person_id',
      {
        schema: {
          tags,
          security,
          summary: "Change a person's roles or console membership",
          params: PersonParams,
          body: AccessChange,
          response: { 200: Envelope(PersonView), ...commonErrors },
        },
      },
      async (request) => {
        const { org } = tenantOf(request);
        const outcome = await changePersonAccess(store, org.id, request.params.person_id, request.body, now(), apiKeyOperator(request));
        if (outcome.kind !== 'changed') throw new TypeError('a change by an API key has no actor whose session could end');
        return { result: presentPerson(outcome.person) };
      },
    );

    app.delete(
      '/persons/:person_id',
      {
        schema: { tags, security, summary: 'Delete a person and everything of theirs', params: PersonParams, response: { 204: Type.Null(), ...commonErrors } },
      },
      async (request, reply) => {
        const { org } = tenantOf(request);
        await deletePerson(store, org.id, request.params.person_id, now(), apiKeyOperator(request));
        return reply.code(204).send(null);
      },
    );
  };
}
