import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliJson } from './lib/cli.ts';
import { type LoadResult, load, table } from './lib/load.ts';
import { startOidcProviderPeer } from './lib/peer-process.ts';
import { freshPostgresDatabase } from './lib/postgres.ts';
import { type ServiceProcess, startServiceProcess } from './lib/service-process.ts';

const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const SUBJECT_POOL = 10_000;
const FORM = 'application/x-www-form-urlencoded';

type Row = LoadResult & { rssMiB: number };

/**
 * The token endpoint against node-oidc-provider's client_credentials grant, side by side in
 * one run: Tessera's client_credentials, and token exchange of person JWTs (drawn from a pool
 * of 10,000 distinct tokens) with an opaque client actor and JWT output.
 */
export async function tokenBenchmark(options: { seconds: number; postgresUrl?: string }): Promise<string> {
  const rows: Row[] = [];
  const peer = await startOidcProviderPeer();
  try {
    const result = await load({
      name: 'oidc-provider 9: client_credentials (in-memory)',
      url: peer.tokenUrl,
      method: 'POST',
      seconds: options.seconds,
      headers: { 'content-type': FORM, authorization: basic('bench', 'bench-secret') },
      body: () => 'grant_type=client_credentials&scope=api%3Aread',
    });
    rows.push({ ...result, rssMiB: peer.rssMiB() });
  } finally {
    await peer.stop();
  }

  const databases: [string, Record<string, string>][] = [
    ['sqlite', { TESSERA_DATABASE: `sqlite:${join(mkdtempSync(join(tmpdir(), 'tessera-bench-')), 'bench.db')}` }],
  ];
  if (options.postgresUrl) databases.push(['postgres', { DATABASE_URL: await freshPostgresDatabase(options.postgresUrl) }]);
  for (const [name, env] of databases) {
    // One worker, then two over the same database: the setup (clients, persons, tokens) is made once.
    let setup: Setup | undefined;
    for (const workers of [1, 2]) {
      // A fixed issuer: the person JWTs minted in the first run must name the second run's issuer too.
      const service = await startServiceProcess({ ...env, TESSERA_ISSUER: 'http://tessera.bench.invalid', TESSERA_WORKERS: String(workers) });
      try {
        if (workers > 1) await new Promise((resolve) => setTimeout(resolve, 2_000)); // every worker listening
        setup = setup ? { ...setup, tokenUrl: `${service.url}/oauth2/tokens` } : await prepare(service, env);
        const label = `tessera ${name}${workers > 1 ? `, ${workers} workers` : ''}`;
        const auth = { 'content-type': FORM, authorization: basic(setup.clientId, setup.clientSecret) };
        const cc = await load({
          name: `${label}: client_credentials (opaque)`,
          url: setup.tokenUrl,
          method: 'POST',
          headers: auth,
          seconds: options.seconds,
          body: () => 'grant_type=client_credentials&scope=orders%3Aread',
        });
        rows.push({ ...cc, rssMiB: service.rssMiB() });
        const exchange = await loadExchanges(setup, `${label}: token exchange (person JWT → JWT, opaque actor)`, options.seconds);
        rows.push({ ...exchange, rssMiB: service.rssMiB() });
      } finally {
        await service.stop();
      }
    }
  }
  return table(rows);
}

/**
 * Token exchanges as the gateway's plugin sends them on a cache miss: a distinct person JWT
 * each time, the gateway client's opaque token as actor, HTTP Basic, JWT requested.
 */
export function loadExchanges(setup: Setup, name: string, seconds: number): Promise<LoadResult> {
  let next = 0;
  return load({
    name,
    url: setup.tokenUrl,
    method: 'POST',
    seconds,
    headers: { 'content-type': FORM, authorization: basic(setup.clientId, setup.clientSecret) },
    body: () =>
      new URLSearchParams({
        grant_type: EXCHANGE,
        subject_token: setup.subjects[next++ % setup.subjects.length]!,
        subject_token_type: JWT,
        actor_token: setup.actorToken,
        actor_token_type: ACCESS_TOKEN,
        requested_token_type: JWT,
      }).toString(),
  });
}

interface Setup {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  actorToken: string;
  subjects: string[];
}

/** An organisation, a gateway client, its actor token and 10,000 distinct person JWTs. */
export async function prepare(service: ServiceProcess, env: Record<string, string>): Promise<Setup> {
  const { org_id, api_key } = await runCliJson(['admin', 'create-org', '--name', 'bench', '--json'], env);
  const headers = { 'service-orgid': org_id, 'service-api-key': api_key, 'content-type': 'application/json' };
  const api = async (path: string, body: unknown) => {
    const response = await fetch(`${service.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { result: any }).result;
  };
  const client = await api('/oauth2/clients', {
    client_name: 'bench-gateway',
    grant_types: ['client_credentials', EXCHANGE],
    scopes: ['orders:read'],
    access_token_duration: 3600,
  });
  const persons: string[] = [];
  for (let i = 0; i < 100; i++) persons.push((await api('/persons', { handles: [{ type: 'email_address', value: `p${i}@bench.example` }] })).id);
  const subjects: string[] = [];
  for (let batch = 0; subjects.length < SUBJECT_POOL; batch++) {
    const minted = await Promise.all(
      Array.from({ length: 50 }, (_, i) => api(`/persons/${persons[(batch * 50 + i) % persons.length]}/mint-token`, { scope: 'orders:read' })),
    );
    subjects.push(...minted.map((m: { token: string }) => m.token));
  }
  if (new Set(subjects).size < SUBJECT_POOL) throw new Error('the subject pool has duplicates');
  const tokenUrl = `${service.url}/oauth2/tokens`;
  const actor = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': FORM, authorization: basic(client.client_id, client.client_secret) },
    body: 'grant_type=client_credentials',
  });
  const { access_token } = (await actor.json()) as { access_token: string };
  return { tokenUrl, clientId: client.client_id, clientSecret: client.client_secret, actorToken: access_token, subjects };
}

export function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}
