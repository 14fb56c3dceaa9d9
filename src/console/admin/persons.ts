import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Operator } from '../../audit/admin-events.ts';
import { ApiError, personNotFound } from '../../errors/api-error.ts';
import { changePersonAccess, createPerson, deletePerson, newPerson } from '../../persons/operations.ts';
import { AccessChange, NewPerson } from '../../persons/schemas.ts';
import type { Handle, Person, PersonRole } from '../../store/types.ts';
import { CONFIRMED, CONFIRMED_NOTICE, requireRecentSignIn } from '../confirm/recent.ts';
import { consoleRequest, type SignedIn, SignInRequired, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field, fields } from '../form-body.ts';
import { checkBody, FormRefusal, formRefusalOf, problemsOf } from '../form-refusals.ts';
import { noticeFrom } from '../notice.ts';
import { consolePageRequest, cursorsOf } from './paging.ts';
import { attemptCountersOf } from './person-attempts.ts';
import { emptyPersonForm, type NewPersonForm, personPage, personsPage } from './person-pages.ts';
import { signInStanding } from './person-sign-in.ts';

const notices: Record<string, string> = {
  created: 'Person created.',
  saved: 'Roles and console membership saved.',
  deleted: 'Person deleted.',
  'attempts-reset': 'Failed-attempt counters reset: the person may sign in again at once.',
  [CONFIRMED]: CONFIRMED_NOTICE,
};

/**
 * The person a creation form describes, checked by the API's own rules (its body schema, then
 * normaliseHandles through newPerson); every problem at once, each naming the form's field.
 */
function personFrom(orgId: string, form: NewPersonForm, at: number): Person {
  const named: [Handle, string][] = [];
  if (form.email !== '') named.push([{ type: 'email_address', value: form.email }, 'email']);
  if (form.phone !== '') named.push([{ type: 'phone_number', value: form.phone }, 'phone']);
  // The API's body names handles by position; the form names them email and phone.
  const renames = Object.fromEntries(
    named.flatMap(([, name], i) => [
      [`body.handles[${i}].value`, name],
      [`body.handles[${i}]`, name],
    ]),
  );
  const body = { handles: named.map(([handle]) => handle), roles: form.roles as PersonRole[], console: form.console };
  let person: Person | undefined;
  const problems = [
    ...(form.email === '' ? ['email: is required (a person signs in to the console with it)'] : []),
    ...problemsOf(() => checkBody(NewPerson, body, renames)),
    ...problemsOf(() => {
      person = newPerson(orgId, body, 'body.handles', at);
    }, renames),
  ];
  if (problems.length > 0 || !person) throw new FormRefusal(400, [...new Set(problems)]);
  return person;
}

/** The console's operator in audit events: the signed-in person. */
export const consoleOperator = (who: SignedIn): Operator => ({ kind: 'console', personId: who.person.id });

const noticeOf = (request: FastifyRequest) => noticeFrom(notices, request.query);
const personIdOf = (request: FastifyRequest) => (request.params as { person_id: string }).person_id;

/**
 * What an administrator may not do to themselves here, so an organisation cannot lock itself
 * out of its console by a slip: the API's admin keys remain the way to make such changes.
 */
function refuseSelfLockout(who: SignedIn, target: string, change: { roles?: string[]; console?: boolean } | 'delete'): void {
  if (target !== who.person.id) return;
  if (change === 'delete') throw new ApiError('CONFLICT', 'person: you cannot delete yourself; another administrator can');
  if (change.roles && !change.roles.includes('admin'))
    throw new ApiError('CONFLICT', 'roles: you cannot remove your own admin role; another administrator can');
  if (change.console === false) throw new ApiError('CONFLICT', 'console: you cannot remove your own console membership; another administrator can');
}

/** Administration of persons: the API's /persons, as pages. */
export function personRoutes(deps: ConsoleDeps) {
  const { store } = deps;
  const listOf = async (orgId: string, query: unknown) => {
    const page = await store.listPersons(orgId, consolePageRequest('persons', query));
    return { persons: page.items, cursors: cursorsOf('persons', page), total: page.totalCount };
  };
  const personOf = async (orgId: string, id: string): Promise<Person> => {
    const person = await store.getPerson(orgId, id);
    if (!person) throw personNotFound();
    return person;
  };
  const showPerson = async (request: FastifyRequest, reply: FastifyReply, who: SignedIn, person: Person, options: Parameters<typeof personPage>[6]) =>
    personPage(
      reply,
      consoleRequest(request),
      person,
      person.id === who.person.id,
      await attemptCountersOf(deps, person),
      await signInStanding(deps, person),
      options,
    );
  /** The person's page again, saying why the form was refused; any other error goes on up. */
  const refusedOnPersonPage = (request: FastifyRequest, reply: FastifyReply, who: SignedIn, person: Person, error: unknown) => {
    const refusal = formRefusalOf(error);
    if (!refusal) throw error;
    return showPerson(request, reply, who, person, { errors: refusal.messages, status: refusal.status });
  };

  return async (app: FastifyInstance) => {
    app.get('/console/admin/persons', async (request, reply) => {
      const { org } = signedIn(request, 'admin');
      return personsPage(reply, consoleRequest(request), await listOf(org.id, request.query), emptyPersonForm, { notice: noticeOf(request) });
    });

    app.post('/console/admin/persons', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const { org } = who;
      const form: NewPersonForm = {
        email: field(request.body, 'email').trim(),
        phone: field(request.body, 'phone').trim(),
        roles: fields(request.body, 'roles'),
        console: field(request.body, 'console') === 'yes',
      };
      // Creating a person with roles grants them, as a change of roles does: the same confirmation.
      if (form.roles.length > 0) requireRecentSignIn(deps.now, who, '/console/admin/persons');
      try {
        const person = personFrom(org.id, form, deps.now());
        await createPerson(store, person, consoleOperator(who), deps.now());
        return seeOther(reply, `/console/admin/persons/${person.id}?notice=created`);
      } catch (error) {
        const refusal = formRefusalOf(error);
        if (!refusal) throw error;
        return personsPage(reply, consoleRequest(request), await listOf(org.id, {}), form, { errors: refusal.messages, status: refusal.status });
      }
    });

    app.get('/console/admin/persons/:person_id', async (request, reply) => {
      const who = signedIn(request, 'admin');
      return showPerson(request, reply, who, await personOf(who.org.id, personIdOf(request)), { notice: noticeOf(request) });
    });

    app.post('/console/admin/persons/:person_id/access', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const person = await personOf(who.org.id, personIdOf(request));
      const change = { roles: fields(request.body, 'roles'), console: field(request.body, 'console') === 'yes' };
      try {
        checkBody(AccessChange, change);
        refuseSelfLockout(who, person.id, change);
        const rolesChange = change.roles.length !== person.roles.length || change.roles.some((role) => !person.roles.includes(role as PersonRole));
        if (rolesChange) requireRecentSignIn(deps.now, who, `/console/admin/persons/${person.id}`);
        const actor = { personId: who.person.id, generation: who.session.generation };
        const access = { ...change, roles: change.roles as PersonRole[] };
        const outcome = await changePersonAccess(store, who.org.id, person.id, access, deps.now(), consoleOperator(who), actor);
        // This session's person was demoted, or signed out everywhere, since the request began.
        if (outcome.kind === 'actor_ended') throw new SignInRequired('expired');
        // This very change raised one's own generation: this browser carries on, as after removing a factor.
        if (outcome.raised && outcome.person.id === who.person.id && outcome.person.generation === who.session.generation + 1) {
          await deps.sessions.carryOn(consoleRequest(request).state, outcome.person.generation);
        }
        return seeOther(reply, `/console/admin/persons/${person.id}?notice=saved`);
      } catch (error) {
        return refusedOnPersonPage(request, reply, who, person, error);
      }
    });

    app.post('/console/admin/persons/:person_id/delete', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const person = await personOf(who.org.id, personIdOf(request));
      try {
        refuseSelfLockout(who, person.id, 'delete');
        // Their console sessions go with them (foreign key), as do their handles, credentials and tokens.
        await deletePerson(store, who.org.id, person.id, deps.now(), consoleOperator(who));
      } catch (error) {
        return refusedOnPersonPage(request, reply, who, person, error);
      }
      return seeOther(reply, '/console/admin/persons?notice=deleted');
    });
  };
}
