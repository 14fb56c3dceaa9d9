import type { FastifyInstance } from 'fastify';
import { consoleRequest, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { html } from '../html.ts';
import { renderPage } from '../layout.ts';
import { apiKeyRoutes } from './api-keys.ts';
import { auditRoutes } from './audit.ts';
import { clientRoutes } from './clients.ts';
import { connectionRoutes } from './connections.ts';
import { organizationSettingsRoutes } from './organization.ts';
import { personSignInRoutes } from './person-sign-in-routes.ts';
import { personRoutes } from './persons.ts';

const sections = [
  { href: '/console/admin/persons', name: 'Persons', text: 'Create persons, invite them or reset their sign-in, give roles and console membership, delete.' },
  {
    href: '/console/admin/connections',
    name: 'Identity connections',
    text: 'Directories pushed over SCIM or read from a provider: create, rotate the SCIM token, see identities.',
  },
  { href: '/console/admin/clients', name: 'OAuth clients', text: 'Create, rotate the secret, delete.' },
  { href: '/console/admin/api-keys', name: 'API keys', text: 'Integration and admin keys: create, rotate, revoke.' },
  { href: '/console/admin/organization', name: 'Organisation settings', text: 'Token lifetime ceiling, passkeys (WebAuthn), SPIFFE trust.' },
  { href: '/console/admin/audit', name: 'Audit log', text: 'What happened, filtered and paged.' },
] as const;

/** Administration (the admin role): one page per kind of record, each in a file of its own beside this one. */
export function adminRoutes(deps: ConsoleDeps) {
  return async (app: FastifyInstance) => {
    app.get('/console/admin', async (request, reply) => {
      signedIn(request, 'admin');
      return renderPage(reply, consoleRequest(request), {
        title: 'Administration',
        body: html`<ul class="stack">${sections.map((s) => html`<li><a href="${s.href}">${s.name}</a><p class="hint">${s.text}</p></li>`)}</ul>`,
      });
    });
    await app.register(personRoutes(deps));
    await app.register(personSignInRoutes(deps));
    await app.register(connectionRoutes(deps));
    await app.register(auditRoutes(deps));
    await app.register(clientRoutes(deps));
    await app.register(apiKeyRoutes(deps));
    await app.register(organizationSettingsRoutes(deps));
  };
}
