import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Enroller } from '../../authn/enrolling-person.ts';
import { confirmTotpEnrolment, startTotpEnrolment, type TotpEnrolmentDeps } from '../../authn/totp-enrolment.ts';
import { regenerateRecoveryCodes } from '../../authn/totp-recovery-codes.ts';
import { ApiError } from '../../errors/api-error.ts';
import { consoleRequest, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field } from '../form-body.ts';
import { confirmAgainPage, enrolmentGonePage, enrolmentPage, recoveryCodesPage } from './totp-pages.ts';

/** The signed-in person, enrolling for themselves as a person JWT would in the API. */
export function enrollerOf(request: FastifyRequest): Enroller {
  const { org, person } = signedIn(request);
  return { org, person, apiKeyId: null };
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
        return seeOther(reply, '/console/security?notice=totp-added');
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.code === 'INVALID_FIELD') return confirmAgainPage(reply, ctx, enrolmentId, onTheForm(error), 400);
        if (error.code === 'NOT_FOUND') return enrolmentGonePage(reply, ctx, onTheForm(error));
        throw error;
      }
    });

    app.post('/console/security/totp/:credential_id/recovery-codes', async (request, reply) => {
      const { credential_id } = request.params as { credential_id: string };
      const { recovery_codes } = await regenerateRecoveryCodes(enrollerOf(request), credential_id, totp);
      return recoveryCodesPage(reply, consoleRequest(request), recovery_codes);
    });
  };
}
