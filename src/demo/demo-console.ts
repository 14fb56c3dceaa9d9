import { randomSecret } from '../crypto/ids.ts';
import { HashWorkPool, hashPassword } from '../methods/password/index.ts';
import type { RunningService } from '../service/service.ts';
import { adminApi } from './admin-api.ts';
import { DEMO_PERSON } from './demo-organization.ts';

/** What a later start reuses: ada's console password (a secret, kept 0600 with the others). */
export interface DemoConsole {
  password: string;
}

/** Passkeys need a secure context: http://localhost is one, http://127.0.0.1 is not an RP id a browser accepts. */
export function consoleUrl(serviceUrl: string): string {
  const url = new URL(serviceUrl);
  if (url.hostname === '127.0.0.1' || url.hostname === '[::1]') url.hostname = 'localhost';
  return `${url.origin}/console/sign-in?org=demo`;
}

async function passwordWorks(serviceUrl: string, orgId: string, password: string): Promise<boolean> {
  const response = await fetch(`${serviceUrl}/authn/password`, {
    method: 'POST',
    headers: { 'service-orgid': orgId, 'content-type': 'application/json' },
    body: JSON.stringify({ handle: { type: 'email_address', value: DEMO_PERSON }, password }),
  });
  await response.body?.cancel();
  return response.ok;
}

/**
 * The console, ready for ada: passkeys bound to localhost on the service's port (so a browser on
 * this machine can register one), and a password she signs in with first. The kept password is
 * reused while it works; otherwise her password credentials are replaced by a new one.
 */
export async function prepareDemoConsole(
  service: RunningService,
  orgId: string,
  adminKey: string,
  personId: string,
  kept: DemoConsole | undefined,
): Promise<DemoConsole> {
  const api = adminApi(service.url, orgId, adminKey);
  const origin = new URL(consoleUrl(service.url)).origin;
  const config = (await api('GET', '/organizations/config')) as { webauthn_rp_id: string | null; webauthn_origins: string[] };
  if (config.webauthn_rp_id !== 'localhost' || !config.webauthn_origins.includes(origin)) {
    await api('PATCH', '/organizations/config', { webauthn_rp_id: 'localhost', webauthn_origins: [origin] });
  }
  if (kept && (await passwordWorks(service.url, orgId, kept.password))) return kept;

  const { store } = service;
  for (const old of await store.listCredentialsOfType(orgId, personId, 'password')) await api('DELETE', `/persons/${personId}/credentials/${old.id}`);
  // Letters and digits only: it is read off a terminal and typed, and a leading '-' reads as an option.
  const password = randomSecret().replace(/[-_]/g, '').slice(0, 20);
  const pool = new HashWorkPool({ concurrency: 1 });
  try {
    await api('POST', `/persons/${personId}/credentials`, { type: 'password', params: { password_hash: await hashPassword(password, pool) } });
  } finally {
    await pool.close();
  }
  return { password };
}
