import type { FastifyInstance } from 'fastify';
import { resetAttemptsOfPerson } from '../../authn/attempt-reset.ts';
import { ApiError, personNotFound } from '../../errors/api-error.ts';
import { invitePerson } from '../../invitations/invite.ts';
import { requireRecentSignIn } from '../confirm/recent.ts';
import { consoleRequest, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field } from '../form-body.ts';
import { invitationMadePage, LINK_LIFETIMES_HOURS, signInStanding } from './person-sign-in.ts';
import { consoleOperator } from './persons.ts';

function lifetimeOf(form: unknown): number {
  const hours = Number(field(form, 'lifetime_hours'));
  if (!(LINK_LIFETIMES_HOURS as readonly number[]).includes(hours)) {
    throw new ApiError('INVALID_FIELD', `lifetime_hours: must be one of ${LINK_LIFETIMES_HOURS.join(', ')}`);
  }
  return hours * 3600;
}

/**
 * The person page's forms on their login (design §9). The invitation is the API's own operation,
 * with the console's rule for a reset on top: it replaces what the person holds, so it asks for a
 * recent sign-in (design §5). Ending a lock is the API's and the CLI's reset of the counters.
 */
export function personSignInRoutes(deps: ConsoleDeps) {
  return async (app: FastifyInstance) => {
    app.post('/console/admin/persons/:person_id/invitation', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const person = await deps.store.getPerson(who.org.id, (request.params as { person_id: string }).person_id);
      if (!person) throw personNotFound();
      const expiresIn = lifetimeOf(request.body);
      if ((await signInStanding(deps, person)).holdsCredentials) requireRecentSignIn(deps.now, who, `/console/admin/persons/${person.id}`);
      const send = field(request.body, 'send') === 'yes';
      const made = await invitePerson(deps.invitations, who.org, person.id, { expiresIn, send }, consoleOperator(who), { send: 'send' });
      return invitationMadePage(reply, consoleRequest(request), person, made);
    });

    app.post('/console/admin/persons/:person_id/attempts/reset', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const personId = (request.params as { person_id: string }).person_id;
      await resetAttemptsOfPerson(deps.store, who.org.id, personId, deps.logins.context.hashCode, consoleOperator(who), deps.now());
      return seeOther(reply, `/console/admin/persons/${personId}?notice=attempts-reset#attempts`);
    });
  };
}
