import autocannon from 'autocannon';
import { pacedLoad } from './paced-load.ts';

export interface LoadResult {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Answers by status code, e.g. { '200': 980, '503': 20 }. */
  statuses: Record<string, number>;
}

export interface LoadOptions {
  name: string;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A fresh body per request, for writes that must not collide. */
  body?: () => string;
  /** Fresh headers per request (merged over `headers`), e.g. a distinct subject token each time. */
  perRequestHeaders?: () => Record<string, string>;
  /** A fresh path (and query) per request on `url`'s host, e.g. a filter naming another user each time. */
  perRequestPath?: () => string;
  connections?: number;
  seconds?: number;
  /** Requests per second at even intervals, open loop (paced-load.ts); unset: as fast as answered, 50 in flight. */
  rate?: number;
}

/** Drives one endpoint with autocannon (bounded in time) and summarises it. */
export async function load({
  name,
  url,
  method = 'GET',
  headers = {},
  body,
  perRequestHeaders,
  perRequestPath,
  connections = 50,
  seconds = 10,
  rate,
}: LoadOptions): Promise<LoadResult> {
  if (rate !== undefined) return pacedLoad({ name, url, method, headers, body, perRequestHeaders, perRequestPath, connections, seconds, rate });
  const result = await autocannon({
    url,
    method,
    headers,
    connections,
    duration: seconds,
    requests:
      body || perRequestHeaders || perRequestPath
        ? [
            {
              method,
              headers,
              setupRequest: (request) => ({
                ...request,
                ...(body ? { body: body() } : {}),
                ...(perRequestHeaders ? { headers: { ...headers, ...perRequestHeaders() } } : {}),
                ...(perRequestPath ? { path: perRequestPath() } : {}),
              }),
            },
          ]
        : undefined,
  });
  return {
    name,
    requests: result.requests.total,
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats?.count ?? 0])),
  };
}

export function table(results: readonly (LoadResult & { rssMiB?: number; cpuUs?: number })[]): string {
  // CPU per request is the figure that does not move with what else shares the machine's cores.
  const withCpu = results.some((r) => r.cpuUs !== undefined);
  const cpu = (r: { cpuUs?: number }) => (withCpu ? ` ${r.cpuUs?.toFixed(0) ?? ''} |` : '');
  const rows = results.map((r) => `| ${r.name} | ${r.rps} |${cpu(r)} ${r.p50} | ${r.p99} | ${r.non2xx} | ${r.errors} | ${r.rssMiB?.toFixed(0) ?? ''} |`);
  return [
    `| run | req/s |${withCpu ? ' CPU µs/req |' : ''} p50 ms | p99 ms | non-2xx | errors | service RSS MiB |`,
    `|---|---:|${withCpu ? '---:|' : ''}---:|---:|---:|---:|---:|`,
    ...rows,
  ].join('\n');
}
