import type { FastifyInstance, FastifyRequest } from 'fastify';
import { withTwoFactors } from '../../authn/assurance.ts';
import type { Enroller } from '../../authn/enrolling-person.ts';
import type { AmrValue } from '../../authn/person-token.ts';
import { ApiError } from '../../errors/api-error.ts';
import { confirmTotpEnrolment, startTotpEnrolment, type TotpEnrolmentDeps } from '../../methods/totp/enrolment-flow.ts';
import { regenerateRecoveryCodes } from '../../methods/totp/regenerate-recovery-codes.ts';
import { requireRecentSignIn } from '../confirm/recent.ts';
import { consoleRequest, proofOf, seeOther, signedIn, signedInOrEnrolling } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field } from '../form-body.ts';
import { confirmAgainPage, enrolmentGonePage, enrolmentPage, recoveryCodesPage } from './totp-pages.ts';

/** The signed-in person (or one enrolling their first second factor), enrolling for themselves as a person JWT would in the API. */
export function enrollerOf(request: FastifyRequest): Enroller {
  const who = signedInOrEnrolling(request);
  return { org: who.org, person: who.person, apiKeyId: null, proof: proofOf(who) };
}

/** The API's rule says `body.code`; on a form, the field is `code`. */
function onTheForm(error: ApiError): string {
  return error.message.replace(/^body\./, '');
}

/** TOTP in the console: the API's own enrolment and recovery-code core, for the signed-in person only. */
export function totpRoutes(deps: ConsoleDeps) {
  const totp: TotpEnrolmentDeps = { store: deps.store, context: deps.logins.context, now: deps.now };
  return async (app: FastifyInstance) => {
    app.post('/console/security/totp', async (request, reply) => {
      const started = await startTotpEnrolment(enrollerOf(request), null, totp);
      return enrolmentPage(reply, consoleRequest(request), started);
    });

    app.post('/console/security/totp/confirm', async (request, reply) => {
      const enroller = enrollerOf(request);
      const ctx = consoleRequest(request);
      const enrolmentId = field(request.body, 'enrolment_id');
      // Apps show codes in groups ("123 456"); the digits are what counts.
      const code = field(request.body, 'code').replace(/\s+/g, '');
      if (code === '') return confirmAgainPage(reply, ctx, enrolmentId, 'code: is required: the code your app shows now', 400);
      try {
        await confirmTotpEnrolment(enroller, enrolmentId, code, totp);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.code === 'INVALID_FIELD') return confirmAgainPage(reply, ctx, enrolmentId, onTheForm(error), 400);
        if (error.code === 'NOT_FOUND') return enrolmentGonePage(reply, ctx, onTheForm(error));
        throw error;
      }
      // The first code proved the new factor: this session now holds it too (design §9: the session carries the factors just set).
      const amr = withTwoFactors([...(enroller.proof!.amr as AmrValue[]), 'otp']);
      await deps.sessions.strengthen(reply, ctx.state, amr);
      return seeOther(reply, '/console/security?notice=totp-added');
    });

    app.post('/console/security/totp/:credential_id/recovery-codes', async (request, reply) => {
      const who = signedIn(request);
      requireRecentSignIn(deps.now, who, '/console/security');
      const { credential_id } = request.params as { credential_id: string };
      const { recovery_codes } = await regenerateRecoveryCodes(enrollerOf(request), credential_id, totp, 'path.credential_id');
      return recoveryCodesPage(reply, consoleRequest(request), recovery_codes);
    });
  };
}
