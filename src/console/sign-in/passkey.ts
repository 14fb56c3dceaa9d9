import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { consoleRequest } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { organizationNamed } from './organization.ts';
import { consolePersonOf, emailHandle, SIGNED_IN_HOME } from './person.ts';

const OptionsBody = Type.Object(
  { organization: Type.String({ maxLength: 100 }), email: Type.Optional(Type.String({ maxLength: 254 })), _csrf: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
const VerifyBody = Type.Object(
  {
    organization: Type.String({ maxLength: 100 }),
    challenge_id: Type.String({ minLength: 1, maxLength: 64 }),
    response: Type.Object({ id: Type.String({ minLength: 1, maxLength: 1400 }), type: Type.Literal('public-key') }, { additionalProperties: true }),
    _csrf: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/**
 * The passkey sign-in, as JSON for console.js: the API's own ceremony (src/authn/webauthn), so a
 * failed assertion counts toward the same lockout, and the person must be of the console.
 */
export function passkeySignInRoutes(deps: ConsoleDeps) {
  const login = () => import('../../authn/webauthn/login.ts');
  return async (app: FastifyInstance) => {
    app.post('/console/sign-in/passkey/options', { schema: { body: OptionsBody } }, async (request) => {
      const body = request.body as { organization: string; email?: string };
      const org = await organizationNamed(deps.store, body.organization);
      const email = body.email?.trim() ?? '';
      return (await login()).startLogin(deps.webauthn, org, email === '' ? null : emailHandle(email));
    });

    app.post('/console/sign-in/passkey', { schema: { body: VerifyBody } }, async (request, reply) => {
      const body = request.body as { organization: string; challenge_id: string; response: unknown };
      const org = await organizationNamed(deps.store, body.organization);
      const onRefused = (reason: string) => request.log.info({ reason }, 'console passkey assertion refused');
      const { personId, amr } = await (await login()).authenticateWithPasskey(deps.webauthn, org, body, onRefused);
      await consolePersonOf(deps, org, personId, 'webauthn');
      await deps.sessions.begin(reply, consoleRequest(request).state, { orgId: org.id, personId, stage: 'signed_in', amr: [...amr] });
      return { location: SIGNED_IN_HOME };
    });
  };
}
