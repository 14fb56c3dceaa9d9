import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { completeSignIn } from '../../authn/second-factor.ts';
import { ApiError } from '../../errors/api-error.ts';
import { consoleRequest } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { SCRIPT_JSON } from '../form-body.ts';
import { isTicketEnded, signInAgain } from './again.ts';
import { organizationNamed } from './organization.ts';
import { consolePersonOf, emailHandle, SIGNED_IN_HOME } from './person.ts';

const BrowserAnswer = Type.Object({ id: Type.String({ minLength: 1, maxLength: 1400 }), type: Type.Literal('public-key') }, { additionalProperties: true });
const OptionsBody = Type.Object(
  { organization: Type.String({ maxLength: 100 }), email: Type.Optional(Type.String({ maxLength: 254 })), _csrf: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
const VerifyBody = Type.Object(
  {
    organization: Type.String({ maxLength: 100 }),
    challenge_id: Type.String({ minLength: 1, maxLength: 64 }),
    response: BrowserAnswer,
    _csrf: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const SecondFactorOptionsBody = Type.Object({}, { additionalProperties: false });
const SecondFactorVerifyBody = Type.Object(
  { challenge_id: Type.String({ minLength: 1, maxLength: 64 }), response: BrowserAnswer },
  { additionalProperties: false },
);

/**
 * The passkey sign-ins, as JSON for console.js: the API's own ceremony (src/methods/passkey), so a
 * failed assertion counts toward the same lockout, and the person must be of the console. Alone,
 * a passkey that verified the user is two factors; after a password it completes the ticket.
 */
export function passkeySignInRoutes(deps: ConsoleDeps) {
  const login = () => import('../../methods/passkey/login.ts');
  return async (app: FastifyInstance) => {
    app.post('/console/sign-in/passkey/options', { config: SCRIPT_JSON, schema: { body: OptionsBody } }, async (request) => {
      const body = request.body as { organization: string; email?: string };
      const org = await organizationNamed(deps.store, body.organization);
      const email = body.email?.trim() ?? '';
      return (await login()).startLogin(deps.webauthn, org, email === '' ? null : emailHandle(email), request.ip);
    });

    app.post('/console/sign-in/passkey', { config: SCRIPT_JSON, schema: { body: VerifyBody } }, async (request, reply) => {
      const body = request.body as { organization: string; challenge_id: string; response: unknown };
      const org = await organizationNamed(deps.store, body.organization);
      const onRefused = (reason: string) => request.log.info({ reason }, 'console passkey assertion refused');
      const ceremonies = await login();
      const proof = await ceremonies.authenticateWithPasskey(deps.webauthn, org, body, onRefused);
      await consolePersonOf(deps, org, proof.personId, 'webauthn');
      const { personId, amr, generation, authTime } = await ceremonies.passkeySignIn(deps.webauthn, org, proof);
      await deps.sessions.begin(reply, consoleRequest(request).state, { orgId: org.id, personId, stage: 'signed_in', amr: [...amr], generation, authTime });
      return { location: SIGNED_IN_HOME };
    });

    app.post('/console/sign-in/code/passkey/options', { config: SCRIPT_JSON, schema: { body: SecondFactorOptionsBody } }, async (request) => {
      const pending = pendingOf(request);
      return (await login()).startSecondFactorLogin(deps.webauthn, pending.org, pending.session.ticketHash, request.ip);
    });

    app.post('/console/sign-in/code/passkey', { config: SCRIPT_JSON, schema: { body: SecondFactorVerifyBody } }, async (request, reply) => {
      const ctx = consoleRequest(request);
      const pending = pendingOf(request);
      const body = request.body as { challenge_id: string; response: unknown };
      const onRefused = (reason: string) => request.log.info({ reason }, 'console passkey assertion refused');
      const ceremonies = await login();
      try {
        const signIn = await completeSignIn(deps.webauthn, pending.org, pending.session.ticketHash, 'webauthn', () =>
          ceremonies.authenticateWithPasskey(deps.webauthn, pending.org, body, onRefused),
        );
        const { personId, amr, generation, authTime } = signIn;
        await deps.sessions.begin(reply, ctx.state, { orgId: pending.org.id, personId, stage: 'signed_in', amr: [...amr], generation, authTime });
        return { location: SIGNED_IN_HOME };
      } catch (error) {
        if (!isTicketEnded(error)) throw error;
        await deps.sessions.end(reply, ctx.state);
        return { location: signInAgain('second-factor-ended', pending.org) };
      }
    });
  };
}

/** The browser's pending sign-in and its ticket; 401 once it has ended (the script then shows the message). */
function pendingOf(request: FastifyRequest) {
  const pending = consoleRequest(request).pending;
  const ticketHash = pending?.session.ticketHash;
  if (!pending || !ticketHash) throw new ApiError('UNAUTHENTICATED', 'console: this sign-in has ended; sign in again');
  return { ...pending, session: { ...pending.session, ticketHash } };
}
