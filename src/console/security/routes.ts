import type { FastifyInstance, FastifyRequest } from 'fastify';
import { deletePersonCredential } from '../../credentials/delete-credential.ts';
import { ApiError } from '../../errors/api-error.ts';
import { consoleRequest, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { noticeFrom } from '../notice.ts';
import { securityPage } from './pages.ts';
import { passkeyRegistrationRoutes } from './passkeys.ts';
import { totpRoutes } from './totp.ts';

/** Fixed texts for `?notice=`: the query picks one, and is never written into the page. */
const notices: Record<string, string> = {
  'passkey-added': 'Passkey added: you can sign in with it now.',
  'passkey-removed': 'Passkey removed.',
  'totp-added': 'Authenticator app turned on: signing in with your password now also asks for its code.',
  'totp-removed': 'Authenticator app removed.',
};

/** What a person may remove here, and what the page says afterwards; a password is not among them. */
const removable = {
  passkeys: { type: 'public-key', name: 'passkey', notice: 'passkey-removed' },
  totp: { type: 'totp', name: 'authenticator app', notice: 'totp-removed' },
} as const;

/** "My security" (/console/security): any signed-in console person, about their own credentials only. */
export function securityRoutes(deps: ConsoleDeps) {
  const { store } = deps;
  return async (app: FastifyInstance) => {
    app.get('/console/security', async (request, reply) => {
      const { org, person } = signedIn(request);
      const [passkeys, totp, passwords] = await Promise.all(
        ['public-key', 'totp', 'password'].map((type) => store.listCredentialsOfType(org.id, person.id, type)),
      );
      const query = request.query as Record<string, unknown>;
      const notice = noticeFrom(notices, query);
      const passkeysEnabled = org.config.webauthn_rp_id !== null && org.config.webauthn_origins.length > 0;
      return securityPage(reply, consoleRequest(request), { passkeys: passkeys!, totp: totp!, password: passwords![0], passkeysEnabled }, notice);
    });

    for (const [path, kind] of Object.entries(removable)) {
      app.post(`/console/security/${path}/:credential_id/remove`, async (request: FastifyRequest, reply) => {
        const { org, person } = signedIn(request);
        const { credential_id: credentialId } = request.params as { credential_id: string };
        // Looked up as the person's own: another person's id, like an unknown one, is a 404.
        const credential = await store.getCredential(org.id, person.id, credentialId);
        if (credential?.type !== kind.type) throw new ApiError('NOT_FOUND', `path.credential_id: you have no ${kind.name} with this id`);
        await deletePersonCredential(store, { orgId: org.id, personId: person.id, credentialId, audit: { api_key_id: null, via: 'console' }, at: deps.now() });
        return seeOther(reply, `/console/security?notice=${kind.notice}`);
      });
    }

    await app.register(totpRoutes(deps));
    await app.register(passkeyRegistrationRoutes(deps));
  };
}
