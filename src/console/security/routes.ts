import type { FastifyInstance, FastifyRequest } from 'fastify';
import { removeOwnFactor } from '../../credentials/factor-removal.ts';
import { CONFIRMED, CONFIRMED_NOTICE, requireRecentSignIn } from '../confirm/recent.ts';
import { consoleRequest, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { noticeFrom } from '../notice.ts';
import { enrolmentRoutes, passkeysHere } from './enrolment.ts';
import { securityPage } from './pages.ts';
import { passkeyRegistrationRoutes } from './passkeys.ts';
import { enrollerOf, totpRoutes } from './totp.ts';

/** Fixed texts for `?notice=`: the query picks one, and is never written into the page. */
const notices: Record<string, string> = {
  'passkey-added': 'Passkey added: you can sign in with it now.',
  'passkey-removed': 'Passkey removed.',
  'totp-added': 'Authenticator app turned on: signing in with your password now also asks for its code.',
  'totp-removed': 'Authenticator app removed.',
  [CONFIRMED]: CONFIRMED_NOTICE,
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
      const view = { passkeys: passkeys!, totp: totp!, password: passwords![0], ...passkeysHere(request, org) };
      return securityPage(reply, consoleRequest(request), view, notice);
    });

    for (const [path, kind] of Object.entries(removable)) {
      app.post(`/console/security/${path}/:credential_id/remove`, async (request: FastifyRequest, reply) => {
        const who = signedIn(request);
        requireRecentSignIn(deps.now, who, '/console/security');
        const { credential_id: credentialId } = request.params as { credential_id: string };
        const factor = { credentialId, type: kind.type, name: kind.name };
        await removeOwnFactor(store, enrollerOf(request), factor, { api_key_id: null, via: 'console' }, deps.now);
        // The deletion raised the person's generation, ending every other sign-in of theirs: this one
        // carries on, unless something else raised it too meanwhile (a sign-out everywhere elsewhere).
        const now = await store.getPerson(who.org.id, who.person.id);
        if (now?.generation === who.session.generation + 1) await deps.sessions.carryOn(consoleRequest(request).state, now.generation);
        return seeOther(reply, `/console/security?notice=${kind.notice}`);
      });
    }

    await app.register(totpRoutes(deps));
    await app.register(passkeyRegistrationRoutes(deps));
    await app.register(enrolmentRoutes(deps));
  };
}
