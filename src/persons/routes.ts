import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { apiKeyOperator } from '../audit/admin-events.ts';
import { newId } from '../crypto/ids.ts';
import { personNotFound } from '../errors/api-error.ts';
import { commonErrors, Envelope, ListEnvelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { listResponse, pageRequest } from '../http/pagination.ts';
import type { CredentialStore } from '../store/credentials/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { type Handle, handleTypes, type Person, type PersonRole, personRoles } from '../store/types.ts';
import { normaliseHandles } from './handles.ts';
import { changePersonAccess, createPerson, deletePerson } from './operations.ts';
import { OVER_BUDGET_LIST, overBudgetPersons, PersonListQuery } from './over-budget.ts';

const HandleSchema = Type.Object(
  {
    type: Type.Enum(handleTypes),
    value: Type.String({ minLength: 1, maxLength: 254, description: 'Email address, or E.164 phone number' }),
  },
  { additionalProperties: false },
);
const Roles = Type.Array(Type.Enum(personRoles), { uniqueItems: true, maxItems: personRoles.length });

export const PersonView = Type.Object({
  id: Type.String(),
  handles: Type.Array(HandleSchema),
  roles: Roles,
  console: Type.Boolean({ description: "Member of the organisation's console" }),
  created_at: Type.String({ format: 'date-time' }),
});
export const NewPerson = Type.Object(
  {
    handles: Type.Array(HandleSchema, { maxItems: 10, default: [], description: 'Unique per organisation' }),
    roles: Type.Optional(Roles),
    console: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
const PersonParams = Type.Object({ person_id: Type.String({ minLength: 1, maxLength: 64 }) });
export const AccessChange = Type.Object(
  { roles: Type.Optional(Roles), console: Type.Optional(Type.Boolean({ description: "Member of the organisation's console" })) },
  { additionalProperties: false, minProperties: 1 },
);

export function presentPerson(person: Person) {
  return { id: person.id, handles: person.handles, roles: person.roles, console: person.console, created_at: new Date(person.createdAt).toISOString() };
}

/** A new person of `orgId` from what a caller gave, its handles in canonical form (400 naming `field` otherwise). */
export function newPerson(
  orgId: string,
  given: { handles: readonly Handle[]; roles?: PersonRole[]; console?: boolean },
  field?: string,
  at = Date.now(),
): Person {
  return {
    id: newId('per', at),
    orgId,
    handles: normaliseHandles(given.handles, field),
    roles: given.roles ?? [],
    console: given.console ?? false,
    createdAt: at,
    generation: 0,
  };
}

/** `now`: the app's clock, which stamps what is created, generation raises and the audit events. */
export function personRoutes(store: PersonStore & CredentialStore & OrganizationStore & TransactionalStore, now: () => number): FastifyPluginAsyncTypebox {
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
        // An admin key may delete any person: the API is the way back for an organisation
        // left without a console administrator.
        const { org } = tenantOf(request);
        await deletePerson(store, org.id, request.params.person_id, now(), apiKeyOperator(request), { keepingAConsoleAdmin: false });
        return reply.code(204).send(null);
      },
    );
  };
}
