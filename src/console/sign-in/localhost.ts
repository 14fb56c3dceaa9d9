import type { FastifyRequest } from 'fastify';
import type { OrganizationStore } from '../../store/organizations/store.ts';
import type { Organization } from '../../store/types.ts';
import { findOrganizationNamed } from './organization.ts';

/** Loopback addresses a browser will not take as an RP id, though they reach the same service as `localhost`. */
const LOOPBACK_LITERALS = new Set(['127.0.0.1', '[::1]']);

/**
 * Where the console should be opened instead, when the organisation's passkeys are bound to
 * `localhost` and the browser came by a loopback address: a browser refuses a passkey ceremony at
 * 127.0.0.1 ("an invalid domain"), and a session begun there could never add one. The origin is
 * the organisation's own `http(s)://localhost:<port>` when it lists one for this port, else the
 * same scheme and port under `localhost`. undefined when nothing needs to move.
 */
export function localhostOrigin(request: FastifyRequest, org: Pick<Organization, 'config'>): string | undefined {
  if (org.config.webauthn_rp_id !== 'localhost') return undefined;
  const host = request.host;
  const match = /^(\[::1\]|127\.0\.0\.1)(?::(\d{1,5}))?$/.exec(host);
  if (!match || !LOOPBACK_LITERALS.has(match[1]!)) return undefined;
  const port = match[2] ?? '';
  // A Host no connection came by (port 0, or above 65535): nothing to move to (a review's find: a 500).
  if (port !== '' && !(Number(port) >= 1 && Number(port) <= 65535)) return undefined;
  const listed = org.config.webauthn_origins.find((origin) => {
    const url = new URL(origin);
    return url.hostname === 'localhost' && url.port === port;
  });
  return listed ?? `${request.protocol}://localhost${port ? `:${port}` : ''}`;
}

/** The sign-in page's own address at `localhost`, when the organisation it names needs that (localhostOrigin). */
export async function localhostRedirect(store: OrganizationStore, request: FastifyRequest, orgText: string): Promise<string | undefined> {
  // The path and query as routed: a request-target in absolute form would otherwise be pasted after the origin.
  if (!request.url.startsWith('/')) return undefined;
  const org = await findOrganizationNamed(store, orgText.trim());
  const origin = org && localhostOrigin(request, org);
  return origin ? `${new URL(origin).origin}${request.url}` : undefined;
}
