import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { RegistrationVerifyRequest } from '../../authn/webauthn/schemas.ts';
import { signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';

const OptionsBody = Type.Object({}, { additionalProperties: false });

/**
 * Adding a passkey, as JSON for console.js: the API's own registration ceremony, as a person
 * JWT runs it (the person registers for themselves only). The CSRF token comes as a header.
 */
export function passkeyRegistrationRoutes(deps: ConsoleDeps) {
  // The ceremony's libraries load on the first use, as for the sign-in.
  const registration = () => import('../../authn/webauthn/registration.ts');
  return async (app: FastifyInstance) => {
    app.post('/console/security/passkeys/options', { schema: { body: OptionsBody } }, async (request) => {
      const { org, person } = signedIn(request);
      return (await registration()).startRegistration(deps.webauthn, org, person.id);
    });

    app.post('/console/security/passkeys', { schema: { body: RegistrationVerifyRequest } }, async (request) => {
      const { org, person } = signedIn(request);
      const body = request.body as { challenge_id: string; response: unknown; label?: string };
      const onRefused = (reason: string) => request.log.info({ reason }, 'console passkey registration refused');
      await (await registration()).finishRegistration(deps.webauthn, org, { kind: 'person', personId: person.id }, body, onRefused);
      return { location: '/console/security?notice=passkey-added' };
    });
  };
}
