import { join } from 'node:path';
import { BIG_STORE, bulkLoad, type Dialect, expiredTokenCount } from './lib/bulk-store.ts';
import { cpuPerRequest, interleaved } from './lib/cpu.ts';
import { type Goal, goalsTable, ratioGoal } from './lib/goals.ts';
import { type LoadResult, load, table } from './lib/load.ts';
import { freshPostgresDatabase } from './lib/postgres.ts';
import { scratchDirectory } from './lib/scratch.ts';
import { type ServiceProcess, startServiceProcess } from './lib/service-process.ts';
import { basic, loadExchanges, prepare, type Setup } from './token.ts';

type Row = LoadResult & { rssMiB: number; cpuUs: number };
const ISSUER = 'http://tessera.bench.invalid';
const EXPIRED = 1_000_000;

/**
 * Issue 13, goal 5: the token endpoint's cost per request on an empty store and on one holding
 * 100,000 persons, 10,000 clients and 1,000,000 live opaque tokens; then the same with a
 * million expired tokens being purged (TESSERA_TOKEN_PURGE_INTERVAL=1) while the load runs;
 * each time beside an empty store under the same load, in alternating rounds.
 */
export async function scaleBenchmark(options: { seconds: number; postgresUrl?: string }): Promise<string> {
  const rows: Row[] = [];
  const notes: string[] = [];
  const goals: Goal[] = [];
  const dialects: Dialect[] = options.postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];
  for (const dialect of dialects) {
    const database = async (): Promise<Database> => {
      const url = dialect === 'sqlite' ? `sqlite:${join(scratchDirectory('tessera-scale-'), 'bench.db')}` : await freshPostgresDatabase(options.postgresUrl!);
      return { url, env: dialect === 'sqlite' ? { TESSERA_DATABASE: url } : { DATABASE_URL: url } };
    };
    // Two stores, each with its own service: the empty one and the big one take turns under
    // the same load, so that the machine's drift falls on both alike.
    const empty = await start(await database());
    const big = await start(await database());
    try {
      await big.service.stop();
      let started = performance.now();
      await bulkLoad(dialect, big.url, big.setup.orgId);
      notes.push(
        `- ${dialect}: ${BIG_STORE.persons.toLocaleString('en')} persons, ${BIG_STORE.clients.toLocaleString('en')} clients and ${BIG_STORE.liveTokens.toLocaleString('en')} live tokens written in ${seconds(started)} s`,
      );
      await big.restart();
      const [emptyRows, bigRows] = await compare(dialect, [empty, 'empty store'], [big, 'big store'], options.seconds);
      await big.service.stop();
      started = performance.now();
      await bulkLoad(dialect, big.url, big.setup.orgId, EXPIRED);
      notes.push(`- ${dialect}: ${EXPIRED.toLocaleString('en')} expired tokens written in ${seconds(started)} s`);
      // The purge starts a second after start-up, then every second while one is not running.
      await big.restart({ TESSERA_TOKEN_PURGE_INTERVAL: '1' });
      started = performance.now();
      const [besideRows, purgingRows] = await compare(
        dialect,
        [empty, 'empty store, beside the purge'],
        [big, `big store, purging ${EXPIRED.toLocaleString('en')} expired tokens`],
        options.seconds,
      );
      const purged = EXPIRED - (await expiredTokenCount(dialect, big.url));
      notes.push(
        `- ${dialect}: the purge deleted ${purged.toLocaleString('en')} of ${EXPIRED.toLocaleString('en')} expired tokens during the purging rows, ${Math.round(purged / ((performance.now() - started) / 1000)).toLocaleString('en')} a second`,
      );
      rows.push(...emptyRows, ...bigRows, ...besideRows, ...purgingRows);
      for (const [i, name] of ['client_credentials', 'token exchange'].entries()) {
        goals.push(ratioGoal(`5. ${dialect}, ${name}: CPU per request, big store / empty`, bigRows[i]!.cpuUs, emptyRows[i]!.cpuUs, 'at most', 1.2));
      }
      for (const [i, name] of ['client_credentials', 'token exchange'].entries()) {
        goals.push(
          ratioGoal(
            `5. ${dialect}, ${name}: p99 while purging / without (the empty store, same rounds)`,
            purgingRows[i]!.p99,
            besideRows[i]!.p99,
            'at most',
            2,
          ),
        );
      }
    } finally {
      await Promise.all([empty.service.stop(), big.service.stop()]);
    }
  }
  return `${table(rows)}\n\n${notes.join('\n')}\n\n${goalsTable(goals)}`;
}

interface Database {
  url: string;
  env: Record<string, string>;
}

interface Store extends Database {
  service: ServiceProcess;
  setup: Setup;
  restart(extraEnv?: Record<string, string>): Promise<void>;
}

/** A service on `database`, with the token benchmark's setup made in it. */
async function start(database: Database): Promise<Store> {
  const launch = (extraEnv: Record<string, string> = {}) => startServiceProcess({ ...database.env, TESSERA_ISSUER: ISSUER, ...extraEnv });
  const service = await launch();
  const store: Store = {
    ...database,
    service,
    setup: await prepare(service, database.env),
    async restart(extraEnv) {
      store.service = await launch(extraEnv);
      store.setup = { ...store.setup, tokenUrl: `${store.service.url}/oauth2/tokens` };
    },
  };
  return store;
}

/** client_credentials and token exchange on two stores, in alternating rounds. */
async function compare(dialect: Dialect, [a, aLabel]: [Store, string], [b, bLabel]: [Store, string], seconds: number): Promise<[Row[], Row[]]> {
  const cc = (store: Store, label: string) => (s: number) => clientCredentials(store.service, store.setup, `${dialect}, ${label}: client_credentials`, s);
  const ex = (store: Store, label: string) => (s: number) => exchanges(store.service, store.setup, `${dialect}, ${label}: token exchange`, s);
  const [aCc, bCc] = await interleaved([cc(a, aLabel), cc(b, bLabel)], seconds, ROUNDS);
  const [aEx, bEx] = await interleaved([ex(a, aLabel), ex(b, bLabel)], seconds, ROUNDS);
  return [
    [aCc!, aEx!],
    [bCc!, bEx!],
  ];
}

const ROUNDS = 4;

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
