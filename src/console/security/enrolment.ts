import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { passkeysConfigured } from '../../methods/passkey/relying-party.ts';
import type { Organization } from '../../store/types.ts';
import { type ConsoleRequest, consoleRequest, ENROLMENT_PAGE, seeOther } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { html } from '../html.ts';
import { csrfField, renderPage } from '../layout.ts';
import { localhostOrigin } from '../sign-in/localhost.ts';
import { passkeyAdding, type SecurityView } from './pages.ts';

/** Whether passkeys can be added from this request's address (see passkeyAdding). */
export function passkeysHere(request: FastifyRequest, org: Organization): Pick<SecurityView, 'passkeysEnabled' | 'passkeysAt'> {
  return {
    passkeysEnabled: passkeysConfigured(org),
    passkeysAt: localhostOrigin(request, org),
  };
}

function enrolmentPage(reply: FastifyReply, ctx: ConsoleRequest, view: Pick<SecurityView, 'passkeysEnabled' | 'passkeysAt'>): FastifyReply {
  const role = ctx.enrolling?.person.roles.includes('admin') ? 'an administrator' : 'a verifier';
  return renderPage(reply, ctx, {
    title: 'Add a second factor',
    webauthn: view.passkeysEnabled && !view.passkeysAt,
    body: html`<p>As ${role} you sign in with two factors. Before anything else, add a passkey or an authenticator app;
from then on you sign in with it (a passkey alone, or your password and the app's code).</p>
<section aria-labelledby="passkey-heading" class="stack">
<h2 id="passkey-heading">A passkey</h2>
<p>This device's own (a fingerprint, face or PIN), a security key, or a phone.</p>
${passkeyAdding(ctx, view)}
</section>
<section aria-labelledby="totp-heading" class="stack">
<h2 id="totp-heading">An authenticator app</h2>
<p>An app on your phone that shows a six-digit code, such as one your organisation recommends.</p>
<form method="post" action="/console/security/totp">${csrfField(ctx)}<button type="submit">Set up an authenticator app</button></form>
</section>`,
  });
}

/**
 * /console/enrol (design §5): the one page a session of an administrator or verifier who proved
 * a single factor may see. Adding a passkey or an authenticator app there (the routes of "My
 * security", open to such a session) gives the session that factor, and the console opens.
 */
export function enrolmentRoutes(_deps: ConsoleDeps) {
  return async (app: FastifyInstance) => {
    app.get(ENROLMENT_PAGE, async (request, reply) => {
      const ctx = consoleRequest(request);
      if (!ctx.enrolling) return seeOther(reply, '/console/');
      return enrolmentPage(reply, ctx, passkeysHere(request, ctx.enrolling.org));
    });
  };
}
