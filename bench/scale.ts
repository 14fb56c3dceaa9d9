import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIG_STORE, bulkLoad, type Dialect, expiredTokenCount } from './lib/bulk-store.ts';
import { cpuPerRequest } from './lib/cpu.ts';
import { type Goal, goalsTable, ratioGoal } from './lib/goals.ts';
import { type LoadResult, load, table } from './lib/load.ts';
import { freshPostgresDatabase } from './lib/postgres.ts';
import { type ServiceProcess, startServiceProcess } from './lib/service-process.ts';
import { basic, loadExchanges, prepare, type Setup } from './token.ts';

type Row = LoadResult & { rssMiB: number; cpuUs: number };
const ISSUER = 'http://tessera.bench.invalid';
const EXPIRED = 1_000_000;

/**
 * Issue 13, goal 5: the token endpoint's cost per request on an empty store and on one holding
 * 100,000 persons, 10,000 clients and 1,000,000 live opaque tokens; then the same with a
 * million expired tokens being purged (TESSERA_TOKEN_PURGE_INTERVAL=1) while the load runs.
 */
export async function scaleBenchmark(options: { seconds: number; postgresUrl?: string }): Promise<string> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const goals: Goal[] = [];
  const databases: [Dialect, string, Record<string, string>][] = [];
  const sqlite = `sqlite:${join(mkdtempSync(join(tmpdir(), 'tessera-scale-')), 'bench.db')}`;
  databases.push(['sqlite', sqlite, { TESSERA_DATABASE: sqlite }]);
  if (options.postgresUrl) {
    const url = await freshPostgresDatabase(options.postgresUrl);
    databases.push(['postgres', url, { DATABASE_URL: url }]);
  }
  for (const [dialect, url, env] of databases) {
    let setup: Setup | undefined;
    const run = async (store: string, extraEnv: Record<string, string> = {}): Promise<[Row, Row]> => {
      const service = await startServiceProcess({ ...env, TESSERA_ISSUER: ISSUER, ...extraEnv });
      try {
        setup = setup ? { ...setup, tokenUrl: `${service.url}/oauth2/tokens` } : await prepare(service, env);
        return [
          await clientCredentials(service, setup, `${dialect}, ${store}: client_credentials`, options.seconds),
          await exchanges(service, setup, `${dialect}, ${store}: token exchange`, options.seconds),
        ];
      } finally {
        await service.stop();
      }
    };
    const empty = await run('empty store');
    let started = performance.now();
    await bulkLoad(dialect, url, setup!.orgId);
    notes.push(
      `- ${dialect}: ${BIG_STORE.persons.toLocaleString('en')} persons, ${BIG_STORE.clients.toLocaleString('en')} clients and ${BIG_STORE.liveTokens.toLocaleString('en')} live tokens written in ${seconds(started)} s`,
    );
    const big = await run('big store');
    started = performance.now();
    await bulkLoad(dialect, url, setup!.orgId, EXPIRED);
    notes.push(`- ${dialect}: ${EXPIRED.toLocaleString('en')} expired tokens written in ${seconds(started)} s`);
    // The purge starts a second after start-up, then every second while one is not running.
    started = performance.now();
    const purging = await run(`big store, purging ${EXPIRED.toLocaleString('en')} expired tokens`, { TESSERA_TOKEN_PURGE_INTERVAL: '1' });
    const left = await expiredTokenCount(dialect, url);
    const purged = EXPIRED - left;
    notes.push(
      `- ${dialect}: the purge deleted ${purged.toLocaleString('en')} of ${EXPIRED.toLocaleString('en')} expired tokens during the purging rows, ${Math.round(purged / ((performance.now() - started) / 1000)).toLocaleString('en')} a second`,
    );
    rows.push(...empty, ...big, ...purging);
    for (const [i, name] of ['client_credentials', 'token exchange'].entries()) {
      goals.push(ratioGoal(`5. ${dialect}, ${name}: CPU per request, big store / empty`, big[i]!.cpuUs, empty[i]!.cpuUs, 'at most', 1.2));
    }
    for (const [i, name] of ['client_credentials', 'token exchange'].entries()) {
      goals.push(ratioGoal(`5. ${dialect}, ${name}: p99 while purging / big store`, purging[i]!.p99, big[i]!.p99, 'at most', 2));
    }
  }
  return `${table(rows)}\n\n${notes.join('\n')}\n\n${goalsTable(goals)}`;
}

async function clientCredentials(service: ServiceProcess, setup: Setup, name: string, seconds: number): Promise<Row> {
  const result = await cpuPerRequest(service.cpuSeconds, () =>
    load({
      name,
      url: setup.tokenUrl,
      method: 'POST',
      seconds,
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(setup.clientId, setup.clientSecret) },
      body: () => 'grant_type=client_credentials&scope=orders%3Aread',
    }),
  );
  return { ...result, rssMiB: service.rssMiB() };
}

async function exchanges(service: ServiceProcess, setup: Setup, name: string, seconds: number): Promise<Row> {
  return { ...(await cpuPerRequest(service.cpuSeconds, () => loadExchanges(setup, name, seconds))), rssMiB: service.rssMiB() };
}

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(0);
