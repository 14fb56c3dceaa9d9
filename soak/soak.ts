import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  freshDatabase,
  type GatewayProcess,
  type ManagedProcess,
  type Replica,
  startAll,
  startGatewayProcess,
  startReplicas,
} from '../test/helpers/replicas.ts';
import { type SmtpListenerOptions, startSmtpListener } from '../test/helpers/smtp.ts';
import { startCheckingUpstream } from './checking-upstream.ts';
import { FAULTS } from './faults.ts';
import { makeFixtures } from './fixtures.ts';
import { acknowledgedWritesKept, type Invariant, readyWithin } from './invariants.ts';
import { Ledger } from './ledger.ts';
import { runLoad } from './load.ts';
import { levelsOff, residentMiB, withinBaseline } from './memory.ts';
import { startPostgresCluster } from './postgres-cluster.ts';
import { startTokenEndpointRelay } from './token-endpoint-relay.ts';

export interface SoakOptions {
  /** How long the load runs with faults (after a warm-up of WARM_UP_MS). */
  seconds: number;
  /** One fault of each kind per cycle. */
  cycleSeconds: number;
  /**
   * Load without faults before the memory baseline is taken at rest: long enough for V8's heap
   * and the connection pools to reach their working size, so that growth after it means a leak.
   */
  warmUpSeconds: number;
  /** The load's bound, in requests a second over all operations. */
  rate: number;
  /** Progress lines, as the run goes. */
  log(line: string): void;
}

export interface InjectedFault {
  name: string;
  atSeconds: number;
  tookMs: number;
}

export interface SoakResult {
  seconds: number;
  warmUpSeconds: number;
  ledger: Ledger;
  faults: InjectedFault[];
  memory: { process: string; baselineMiB: number; endMiB: number }[];
  /** The surviving replica's resident MiB every 10 s of the run: a leak climbs, a heap sizing itself levels off. */
  survivorTrend: number[];
  invariants: Invariant[];
}

const REST_MS = 3_000;

/** The whole stack on loopback under a bounded mixed load, with the fault matrix injected each cycle; then the checks. */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const cluster = await startPostgresCluster(await freePort());
  const stopping: (() => Promise<unknown>)[] = [() => cluster.stop()];
  try {
    const database = await freshDatabase(cluster.url);
    const smtpOptions: SmtpListenerOptions = {};
    const smtp = await startSmtpListener(smtpOptions);
    stopping.unshift(() => smtp.close());
    const replicas = await startReplicas(2, {
      databaseUrl: database.url,
      env: { TESSERA_SMTP_URL: smtp.url, TESSERA_SMTP_FROM: 'verify@example.org', TESSERA_SHUTDOWN_TIMEOUT: '5' },
    });
    stopping.unshift(() => Promise.all(replicas.map((replica) => replica.kill('SIGKILL'))));
    const [victim, survivor] = replicas as [Replica, Replica];
    options.log(`replicas ${replicas.map((r) => r.url).join(', ')} on PostgreSQL ${cluster.url}`);
    const fixtures = await makeFixtures(database.url, survivor, 10);
    const upstream = await startCheckingUpstream(fixtures.persons.map((person) => person.jwt));
    const relay = await startTokenEndpointRelay(() => replicas.map((replica) => replica.url));
    stopping.unshift(
      () => relay.close(),
      () => upstream.close(),
    );
    const gateways: GatewayProcess[] = await startAll(
      [0, 1].map(() =>
        startGatewayProcess({
          serviceUrl: relay.url,
          client: fixtures.gatewayClient,
          upstreamUrl: upstream.url,
          // Every call an exchange (no cache), and a hanging token endpoint given up on in 2 s.
          env: { GATEWAY_PLUGINS_0_PARAMETERS_CACHE_DELEGATED_TOKENS: 'false', GATEWAY_PLUGINS_0_PARAMETERS_UPSTREAM_REQUEST_TIMEOUT: '2s' },
        }),
      ),
    );
    stopping.unshift(() => Promise.all(gateways.map((gateway) => gateway.kill('SIGKILL'))));
    options.log(`gateways ${gateways.map((g) => g.url).join(', ')}; warming up`);

    const ledger = new Ledger();
    const context = {
      ledger,
      fixtures,
      smtp,
      replica: () => replicas[Math.floor(Math.random() * replicas.length)]!.url,
      gateway: () => gateways[Math.floor(Math.random() * gateways.length)]!.url,
    };
    await runLoad(context, { rate: options.rate, until: Date.now() + options.warmUpSeconds * 1000 });
    await sleep(REST_MS);
    const watched = [
      { process: 'service replica (not killed)', pid: survivor.pid },
      ...gateways.map((gateway, i) => ({ process: `gateway ${i + 1}`, pid: gateway.pid })),
    ];
    const baseline = watched.map(({ pid }) => residentMiB(pid) ?? 0);

    options.log(`load for ${options.seconds} s with faults every ${options.cycleSeconds} s`);
    const started = Date.now();
    const faults: InjectedFault[] = [];
    const injecting = (async () => {
      for (let cycle = 0; cycle * options.cycleSeconds < options.seconds; cycle++) {
        for (const fault of FAULTS) {
          const at = (cycle + fault.at) * options.cycleSeconds * 1000;
          if (at >= options.seconds * 1000) return;
          await sleep(Math.max(0, started + at - Date.now()));
          const begun = Date.now();
          options.log(`  ${((begun - started) / 1000).toFixed(1)} s: ${fault.name}`);
          await fault.inject({ victim, cluster, relay, smtp: smtpOptions });
          faults.push({ name: fault.name, atSeconds: (begun - started) / 1000, tookMs: Date.now() - begun });
        }
      }
    })();
    const survivorTrend: number[] = [];
    const sampling = setInterval(() => survivorTrend.push(residentMiB(survivor.pid) ?? 0), 10_000);
    await runLoad(context, { rate: options.rate, until: started + options.seconds * 1000 });
    clearInterval(sampling);
    await injecting;
    await sleep(REST_MS);

    const memory = watched.map(({ process, pid }, i) => ({ process, baselineMiB: baseline[i]!, endMiB: residentMiB(pid) ?? 0 }));
    const probed = [
      ...replicas.map((replica, i) => ({ name: `replica ${i + 1}`, url: `${replica.url}/readyz`, process: replica as ManagedProcess })),
      ...gateways.map((gateway, i) => ({ name: `gateway ${i + 1}`, url: `${gateway.adminUrl}/readyz`, process: gateway as ManagedProcess })),
    ];
    // A process that stays unready says why: whether it ended, how, and its last lines (a CI run saw
    // the restarted replica answer nothing at the end, and nothing more could be told).
    const notReady = async ({ url, process }: (typeof probed)[number]) => {
      const last = await readyWithin(url, 15_000);
      return last === undefined ? undefined : `${last}${await ending(process)}`;
    };
    const stillNotReady = (await Promise.all(probed.map(async (probe) => ({ name: probe.name, last: await notReady(probe) })))).filter(
      (probe) => probe.last !== undefined,
    );
    const invariants: Invariant[] = [
      await acknowledgedWritesKept(database.url, ledger, survivor.url, fixtures),
      { name: 'no request answered 500', held: ledger.count(500) === 0, detail: `${ledger.count(500)} of ${ledger.requests}` },
      {
        name: 'every 503 carried Retry-After, and nothing hung',
        held: ledger.violationsOf('no retry-after') + ledger.violationsOf('hang') === 0,
        detail: `${ledger.unavailable} answers 503, ${ledger.count('timeout')} without an answer in 15 s`,
      },
      {
        name: 'the gateways never forwarded a caller token, only delegated ones',
        held: upstream.leaks.length === 0 && upstream.requests > 0,
        detail: upstream.leaks[0] ?? `${upstream.requests} requests reached the upstream, each with a delegated token`,
      },
      {
        name: 'no verification succeeded for a removed identity',
        held: ledger.violationsOf('removed identity') === 0,
        detail: `${ledger.count(403)} refusals 403 in all; ${ledger.acked.removed.size} identities removed`,
      },
      {
        name: 'every replica and gateway ready again afterwards',
        held: stillNotReady.length === 0,
        detail:
          stillNotReady.length === 0
            ? `${probed.length} of ${probed.length} answered /readyz 200`
            : stillNotReady.map((probe) => `${probe.name} still answered ${probe.last}`).join('; '),
      },
      {
        name: 'memory levels off: no leak',
        held: memory.every((m) => withinBaseline(m.baselineMiB, m.endMiB)) || levelsOff(survivorTrend, memory),
        detail: `${memory.map((m) => `${m.process} ${m.baselineMiB} → ${m.endMiB} MiB`).join('; ')} (baseline at rest after the warm-up, end at rest after the load)`,
      },
      {
        name: 'no other broken promise during the run',
        held: ledger.violationsOf('other') === 0,
        detail: `${ledger.violationsOf('other')}; the first of all noted: ${ledger.violations[0] ?? 'none'}`,
      },
    ];
    await database.drop().catch(() => {});
    return { seconds: options.seconds, warmUpSeconds: options.warmUpSeconds, ledger, faults, memory, survivorTrend, invariants };
  } finally {
    for (const stop of stopping) await stop().catch(() => {});
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** How a process that stays unready stands: ended (with its code or signal) or running, and its last lines. */
async function ending(process: ManagedProcess): Promise<string> {
  const status = await Promise.race([process.exited, sleep(0).then(() => undefined)]);
  const state = status ? `, ended (${status.signal ?? `exit ${status.code}`})` : ', still running';
  // One table cell of the report: the lines joined, each cut to 300 characters.
  const lines = process
    .output()
    .trimEnd()
    .split('\n')
    .slice(-5)
    .map((line) => line.slice(0, 300))
    .join(' ⏎ ');
  return `${state}; its last lines: ${lines}`;
}
