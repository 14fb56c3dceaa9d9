import type { FastifyInstance, FastifyRequest } from 'fastify';
import { failureClockNow, waitForFailureTime } from '../../authn/failure-time.ts';
import { ApiError } from '../../errors/api-error.ts';
import { INVITATION_PATH } from '../../invitations/link.ts';
import { type OpenInvitation, openInvitation, redeemInvitation } from '../../invitations/redeem.ts';
import { consoleRequest, seeOther } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field } from '../form-body.ts';
import { SIGNED_IN_HOME } from '../sign-in/person.ts';
import { invitationPage, passwordSetPage } from './pages.ts';

/**
 * An invitation link's page and its form (design §9). Both are a door a stranger can knock on
 * with guessed tokens, so each holds one of the address's places among logins in flight and
 * answers a link that does not work at the login failure time, as a wrong password is: an
 * address tries at most a few tokens a second, all of them out of 2^256.
 */
export function invitationRoutes(deps: ConsoleDeps) {
  const { logins, sessions } = deps;
  const redemption = { store: deps.store, now: deps.now, pool: logins.pool, policy: logins.policy, context: logins.context };

  /** Runs `step` in the address's place; a link that does not work waits out the failure time. */
  const asLogin = async <T>(request: FastifyRequest, step: () => Promise<T>): Promise<T> => {
    const started = failureClockNow();
    const leave = logins.perSource.enter(request.ip);
    try {
      return await step();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'NOT_FOUND') await waitForFailureTime(started, logins.failureTimeMs);
      throw error;
    } finally {
      leave();
    }
  };

  return async (app: FastifyInstance) => {
    app.get(`${INVITATION_PATH}/:token`, async (request, reply) => {
      const { token } = request.params as { token: string };
      const opened = await asLogin(request, () => openInvitation(redemption, token));
      return invitationPage(reply, consoleRequest(request), token, opened);
    });

    app.post(INVITATION_PATH, async (request, reply) => {
      const ctx = consoleRequest(request);
      const token = field(request.body, 'token');
      const password = field(request.body, 'password');
      let opened: OpenInvitation | undefined;
      try {
        return await asLogin(request, async () => {
          opened = await openInvitation(redemption, token);
          if (password !== field(request.body, 'password_again'))
            throw new ApiError('INVALID_FIELD', 'password_again: does not match the password; type the same password twice');
          const redeemed = await redeemInvitation(redemption, opened, password);
          if (!redeemed.person.console) return passwordSetPage(reply, ctx, opened);
          const { org, person, amr } = redeemed;
          // The session carries what was just proven; one who owes a second factor is kept to the enrolment page.
          await sessions.begin(reply, ctx.state, { orgId: org.id, personId: person.id, stage: 'signed_in', amr, generation: person.generation });
          return seeOther(reply, SIGNED_IN_HOME);
        });
      } catch (error) {
        if (!(opened && error instanceof ApiError && ['INVALID_FIELD', 'TOO_MANY_LOGINS_IN_FLIGHT', 'PASSWORD_CHECKS_BUSY'].includes(error.code))) throw error;
        reply.headers(error.headers);
        return invitationPage(reply, ctx, token, opened, { status: error.status, message: error.message });
      }
    });
  };
}
