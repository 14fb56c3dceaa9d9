import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launcher } from './lib/cli.ts';
import { cpuPerRequest, measureCpu, ownCpuSeconds } from './lib/cpu.ts';
import { startNginxForwardAuth } from './lib/forward-auth-nginx.ts';
import { boundGoal, goalsTable, ratioGoal } from './lib/goals.ts';
import { type LoadResult, load, table } from './lib/load.ts';
import { startOtlpSink } from './lib/otlp-sink.ts';
import { freePort } from './lib/ports.ts';
import { type BenchProcess, node, portEnv, startProcess } from './lib/process.ts';
import { scratchDirectory } from './lib/scratch.ts';
import { startServiceProcess } from './lib/service-process.ts';
import { loadExchanges, prepare, type Setup } from './token.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const JWT = 'urn:ietf:params:oauth:token-type:jwt';

type Row = LoadResult & { rssMiB?: number; cpuUs?: number; cpu?: Record<string, number> };

function nginxAvailable(): boolean {
  try {
    execFileSync('nginx', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** nginx with one worker (the gateway is one process too), proxy_pass with upstream keepalive. */
function startNginx(upstream: string): Promise<BenchProcess> {
  const dir = scratchDirectory('bench-nginx-');
  for (const sub of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, sub));
  return startProcess(
    'nginx',
    (port) => {
      writeFileSync(
        join(dir, 'nginx.conf'),
        `worker_processes 1; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http { access_log off; client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream u { server ${new URL(upstream).host}; keepalive 128; }
  server { listen 127.0.0.1:${port}; location / { proxy_pass http://u; proxy_http_version 1.1; proxy_set_header Connection ""; } } }
`,
      );
      return ['-c', join(dir, 'nginx.conf'), '-p', dir];
    },
    () => ({}),
  );
}

/**
 * The gateway against nginx and @fastify/http-proxy, side by side in one run: direct to the
 * upstream, the three proxies without auth, then the gateway's token exchange on a cache hit
 * (one subject) and on misses (cache off, 10,000 distinct subjects), and the same exchange
 * behind nginx through the forward-auth port (docs/forward-auth.md's configuration).
 */
export async function gatewayBenchmark(options: { seconds: number }): Promise<string> {
  const rows: Row[] = [];
  const upstream = await startProcess(process.execPath, node(here('./peers/upstream-server.ts')), portEnv());
  let service: BenchProcess | undefined;
  // `checks`: the gateway answering a proxy's forward-auth checks, a process of its own beside it.
  const cpuOf = (proc?: BenchProcess, checks?: BenchProcess) => ({
    'load generator': ownCpuSeconds,
    upstream: upstream.cpuSeconds,
    ...(proc ? { proxy: proc.cpuSeconds } : {}),
    ...(checks ? { 'forward-auth gateway': checks.cpuSeconds } : {}),
    ...(service ? { service: service.cpuSeconds } : {}),
  });
  const drive = async (
    name: string,
    url: string,
    proc?: BenchProcess,
    headers: Record<string, string> = {},
    perRequestHeaders?: () => Record<string, string>,
    checks?: BenchProcess,
    rate?: number,
  ) => {
    // CPU per request is the proxy's own (the upstream's on the direct row).
    const { result, cpu } = await measureCpu(cpuOf(proc, checks), () =>
      cpuPerRequest((proc ?? upstream).cpuSeconds, () =>
        load({ name, url, headers, seconds: options.seconds, ...(perRequestHeaders ? { perRequestHeaders } : {}), ...(rate ? { rate } : {}) }),
      ),
    );
    rows.push({ ...result, cpu, ...(proc ? { rssMiB: proc.rssMiB() } : {}) });
  };
  try {
    await drive('direct to the upstream', `${upstream.url}/orders/1`);
    if (nginxAvailable()) {
      const nginx = await startNginx(upstream.url);
      await drive(NGINX_ROW, `${nginx.url}/orders/1`, nginx).finally(() => nginx.stop());
    } else {
      process.stderr.write('nginx not installed (apt-get install nginx): its row is skipped\n');
    }
    const bare = await startProcess(process.execPath, node(here('./peers/bare-proxy.ts')), portEnv({ UPSTREAM: upstream.url }));
    await drive(BARE_ROW, `${bare.url}/orders/1`, bare).finally(() => bare.stop());
    const fastifyProxy = await startProcess(process.execPath, node(here('./peers/fastify-proxy.ts')), portEnv({ UPSTREAM: upstream.url }));
    await drive(FASTIFY_ROW, `${fastifyProxy.url}/orders/1`, fastifyProxy).finally(() => fastifyProxy.stop());

    const plain = await startGatewayProcess(gatewayEnv(upstream.url, {}));
    await drive('tessera gateway, no plugin', `${plain.url}/orders/1`, plain).finally(() => plain.stop());

    const database = `sqlite:${join(scratchDirectory('bench-gw-'), 'db.sqlite')}`;
    const tokenService = await startServiceProcess({ TESSERA_DATABASE: database });
    service = tokenService;
    try {
      const setup = await prepare(tokenService, { TESSERA_DATABASE: database });
      const plugin = (cache: boolean) => gatewayEnv(upstream.url, tokenExchangePlugin(tokenService.url, setup, cache));
      const hit = await startGatewayProcess(plugin(true));
      await drive(HIT_ROW, `${hit.url}/orders/1`, hit, { authorization: `Bearer ${setup.subjects[0]}` }).finally(() => hit.stop());
      // The same hit and miss with every request traced to an OTLP sink (issue 28): the cost of tracing on.
      // Every request sampled, then one in ten as a busy deployment would (OTEL_TRACES_SAMPLER).
      const otlp = await startOtlpSink();
      const tenth = { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
      try {
        for (const [row, cache, sampling] of [
          [TRACED_HIT_ROW, true, {}],
          [TRACED_TENTH_HIT_ROW, true, tenth],
          [TRACED_MISS_ROW, false, {}],
        ] as const) {
          const traced = await startGatewayProcess({ ...plugin(cache), ...otlp.env, ...sampling });
          let next = 0;
          const subject = () => ({ authorization: `Bearer ${setup.subjects[next++ % setup.subjects.length]}` });
          await drive(row, `${traced.url}/orders/1`, traced, cache ? subject() : {}, cache ? undefined : subject).finally(() => traced.stop());
        }
      } finally {
        await otlp.sink.stop();
      }
      if (nginxAvailable()) {
        // docs/forward-auth.md's nginx in front, asking the gateway's forward-auth port.
        for (const cache of [true, false]) {
          const forwardAuthPort = await freePort();
          const checks = await startGatewayProcess({ ...plugin(cache), GATEWAY_FORWARD_AUTH_PORT: String(forwardAuthPort) });
          const nginx = await startNginxForwardAuth(upstream.url, forwardAuthPort).catch(async (error: unknown) => {
            await checks.stop();
            throw error;
          });
          let next = 0;
          await drive(
            cache ? FORWARD_AUTH_HIT_ROW : FORWARD_AUTH_MISS_ROW,
            `${nginx.url}/orders/1`,
            nginx,
            cache ? { authorization: `Bearer ${setup.subjects[0]}` } : {},
            cache ? undefined : () => ({ authorization: `Bearer ${setup.subjects[next++ % setup.subjects.length]}` }),
            checks,
          ).finally(async () => {
            await nginx.stop();
            await checks.stop();
          });
        }
      }
      const { result, cpu } = await measureCpu(cpuOf(), () =>
        cpuPerRequest(tokenService.cpuSeconds, () => loadExchanges(setup, TOKEN_ENDPOINT_ROW, options.seconds)),
      );
      rows.push({ ...result, cpu });
      const miss = await startGatewayProcess(plugin(false));
      let next = 0;
      await drive(MISS_ROW, `${miss.url}/orders/1`, miss, {}, () => ({ authorization: `Bearer ${setup.subjects[next++ % setup.subjects.length]}` })).finally(
        () => miss.stop(),
      );
      // A process's CPU per request depends on its load: saturated, each wake-up serves many
      // requests; at the misses' rate (bounded by the token endpoint) it serves few, and pays
      // the wake-ups, epoll and scheduling per request. What a miss adds is its cost over a
      // hit's at the same rate (issue 30's goal 5), the hits sent at even intervals (open loop).
      const paced = await startGatewayProcess(plugin(true));
      const missRps = rows.find((r) => r.name === MISS_ROW)?.rps;
      if (!missRps) throw new Error(`the miss row measured no req/s: the paced hit row has no rate to run at`);
      await drive(
        HIT_AT_MISS_RATE_ROW,
        `${paced.url}/orders/1`,
        paced,
        { authorization: `Bearer ${setup.subjects[0]}` },
        undefined,
        undefined,
        missRps,
      ).finally(() => paced.stop());
    } finally {
      await tokenService.stop();
    }
  } finally {
    await upstream.stop();
  }
  return `${table(rows).replace('service RSS MiB', 'proxy RSS MiB')}\n\n${cpuTable(rows)}\n\n${targets(rows)}`;
}

const NGINX_ROW = 'nginx 1 worker, proxy_pass keepalive';
const FASTIFY_ROW = '@fastify/http-proxy, no auth';
const BARE_ROW = 'bare Node proxy: node:http + undici pool, no checks (a floor, not a peer)';
const HIT_ROW = 'tessera gateway, token exchange, cache hit';
const MISS_ROW = 'tessera gateway, token exchange, cache miss (distinct subjects)';
const HIT_AT_MISS_RATE_ROW = "tessera gateway, token exchange, cache hit, offered at the miss row's req/s";
const TRACED_HIT_ROW = 'tessera gateway, token exchange, cache hit, tracing on';
const TRACED_TENTH_HIT_ROW = 'tessera gateway, token exchange, cache hit, tracing on, 1 in 10 sampled';
const TRACED_MISS_ROW = 'tessera gateway, token exchange, cache miss, tracing on (the gateway only)';
const FORWARD_AUTH_HIT_ROW = 'nginx + tessera forward auth, cache hit';
const FORWARD_AUTH_MISS_ROW = 'nginx + tessera forward auth, cache miss (distinct subjects)';
const TOKEN_ENDPOINT_ROW = 'token endpoint alone: the exchange a miss sends';

/** Two cores are shared by every process of a row: this shows where they went. */
function cpuTable(rows: readonly Row[]): string {
  const columns = ['load generator', 'upstream', 'proxy', 'forward-auth gateway', 'service'];
  const cell = (value: number | undefined) => (value === undefined ? '' : `${Math.round(value * 100)} %`);
  return [
    `| CPU, % of one core | ${columns.join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
    ...rows.map((r) => `| ${r.name} | ${columns.map((c) => cell(r.cpu?.[c])).join(' | ')} |`),
  ].join('\n');
}

/** Issue 4's targets, worked out from this run's rows. */
function targets(rows: readonly Row[]): string {
  const rps = (name: string) => rows.find((r) => r.name === name)?.rps;
  const ratio = (a: string, b: string, target: number) => {
    const [x, y] = [rps(a), rps(b)];
    if (x === undefined || y === undefined) return `not measured (${x === undefined ? a : b} missing)`;
    return `${(x / y).toFixed(2)}× (target ≥ ${target}×: ${x / y >= target ? 'met' : 'not met'})`;
  };
  // A traced gateway holds the OpenTelemetry SDK and its span queue besides: the goal is the gateway's own.
  const gatewayRss = Math.max(...rows.filter((r) => r.name.startsWith('tessera gateway') && !r.name.includes('tracing')).map((r) => r.rssMiB ?? 0));
  const cpuUs = (name: string) => rows.find((r) => r.name === name)?.cpuUs;
  const issue4 = [
    `- cache hit / @fastify/http-proxy: ${ratio(HIT_ROW, FASTIFY_ROW, 1)}`,
    `- cache miss / token endpoint alone: ${ratio(MISS_ROW, TOKEN_ENDPOINT_ROW, 0.8)}`,
  ].join('\n');
  const issue30 = goalsTable([
    ratioGoal('4. gateway cache hit req/s / nginx (1 worker, keepalive)', rps(HIT_ROW), rps(NGINX_ROW), 'at least', 0.5),
    ratioGoal("5. the gateway's CPU per request on a miss / on a hit at the same req/s", cpuUs(MISS_ROW), cpuUs(HIT_AT_MISS_RATE_ROW), 'at most', 2),
    boundGoal('6. gateway RSS after each run without tracing, highest', gatewayRss, 'MiB', 'below', GATEWAY_RSS_LIMIT_MIB),
  ]);
  const [miss, hit] = [cpuUs(MISS_ROW), cpuUs(HIT_ROW)];
  const saturated = miss && hit ? `${(miss / hit).toFixed(2)}× (${miss.toFixed(0)} / ${hit.toFixed(0)} µs)` : 'not measured';
  return [
    `Issue 4's targets:\n\n${issue4}`,
    `Issue 30's goals (issue 4's hit / nginx and issue 13's miss / hit and memory, with issue 30's targets):\n\n${issue30}`,
    `- goal 4 for the bare Node proxy, the floor of any proxy on node:http and undici: ${ratio(BARE_ROW, NGINX_ROW, 0.5)}`,
    `- goal 5 against the saturated hit row instead (a miss at the token endpoint's pace, a hit at its own): ${saturated}`,
  ].join('\n\n');
}

/** Issue 30's bound on the gateway's resident memory. */
const GATEWAY_RSS_LIMIT_MIB = 114;

/** A gateway in front of `upstream`, as every row runs it, with `extra` settings. */
export function gatewayEnv(upstream: string, extra: Record<string, string>): Record<string, string> {
  return {
    GATEWAY_DEFAULT_TARGET: upstream,
    GATEWAY_ADMIN_PORT: '0',
    GATEWAY_LOG_LEVEL: 'warn',
    // As for the service (bench/lib/service-process.ts): autocannon ignores `Connection: close`.
    GATEWAY_MAX_REQUESTS_PER_CONNECTION: '100000',
    ...extra,
  };
}

/** The token-exchange plugin as every gateway row configures it: oauth_client actor, a JWT out, the cache on or off. */
export function tokenExchangePlugin(serviceUrl: string, setup: Setup, cache: boolean): Record<string, string> {
  return {
    GATEWAY_PLUGINS_0_TYPE: 'token-exchange',
    GATEWAY_PLUGINS_0_PARAMETERS_SERVICE_BASE_URL: serviceUrl,
    GATEWAY_PLUGINS_0_PARAMETERS_SUBJECT_HEADER_WITH_TOKEN: 'Authorization',
    GATEWAY_PLUGINS_0_PARAMETERS_ACTOR_MODE: 'oauth_client',
    GATEWAY_PLUGINS_0_PARAMETERS_OAUTH_CLIENT_ID: setup.clientId,
    GATEWAY_PLUGINS_0_PARAMETERS_OAUTH_CLIENT_SECRET: setup.clientSecret,
    GATEWAY_PLUGINS_0_PARAMETERS_REQUESTED_TOKEN_TYPE: JWT,
    GATEWAY_PLUGINS_0_PARAMETERS_CACHE_DELEGATED_TOKENS: String(cache),
  };
}

/** tessera gateway on a free port; ready once its proxy port answers. BENCH_GATEWAY_NODE_OPTIONS reaches it only. */
export function startGatewayProcess(env: Record<string, string>): Promise<BenchProcess> {
  return startProcess(
    launcher,
    () => ['gateway'],
    (port) => ({
      NODE_OPTIONS: process.env.BENCH_GATEWAY_NODE_OPTIONS ?? '',
      ...env,
      GATEWAY_PORT: String(port),
    }),
    '/orders/1',
  );
}
