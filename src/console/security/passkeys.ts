import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { withTwoFactors } from '../../authn/assurance.ts';
import type { AmrValue } from '../../authn/person-token.ts';
import { RegistrationVerifyRequest } from '../../methods/passkey/schemas.ts';
import { consoleRequest, proofOf, signedInOrEnrolling } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { SCRIPT_JSON } from '../form-body.ts';

const OptionsBody = Type.Object({}, { additionalProperties: false });

/**
 * Adding a passkey, as JSON for console.js: the API's own registration ceremony, as a person
 * JWT runs it (the person registers for themselves only, with what their session proved). The
 * CSRF token comes as a header. Open to a session that must enrol a second factor, too.
 */
export function passkeyRegistrationRoutes(deps: ConsoleDeps) {
  // The ceremony's libraries load on the first use, as for the sign-in.
  const registration = () => import('../../methods/passkey/registration.ts');
  return async (app: FastifyInstance) => {
    app.post('/console/security/passkeys/options', { config: SCRIPT_JSON, schema: { body: OptionsBody } }, async (request) => {
      const who = signedInOrEnrolling(request);
      const caller = { kind: 'person' as const, personId: who.person.id, proof: proofOf(who) };
      return (await registration()).startRegistration(deps.webauthn, who.org, caller, who.person.id);
    });

    app.post('/console/security/passkeys', { config: SCRIPT_JSON, schema: { body: RegistrationVerifyRequest } }, async (request, reply) => {
      const who = signedInOrEnrolling(request);
      const body = request.body as { challenge_id: string; response: unknown; label?: string };
      const onRefused = (reason: string) => request.log.info({ reason }, 'console passkey registration refused');
      const caller = { kind: 'person' as const, personId: who.person.id, proof: proofOf(who) };
      const { amr } = await (await registration()).finishRegistration(deps.webauthn, who.org, caller, body, onRefused);
      // The ceremony proved the new passkey (with the user verified): this session now holds it too.
      await deps.sessions.strengthen(reply, consoleRequest(request).state, withTwoFactors([...(who.session.amr as AmrValue[]), ...amr]));
      return { location: '/console/security?notice=passkey-added' };
    });
  };
}
