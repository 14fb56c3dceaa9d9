import { launcher } from './cli.ts';
import { type BenchProcess, startProcess } from './process.ts';

export type ServiceProcess = BenchProcess;

/** The service's TESSERA_SECRET in every benchmark: a benchmark that writes keyed rows itself needs it. */
export const BENCH_SECRET = 'bench-secret-bench-secret-bench-secret';

/**
 * The service in a process of its own, so the load generator does not share its event loop.
 * BENCH_SERVICE_NODE_OPTIONS reaches the service only, e.g. --cpu-prof for a profile under load;
 * its logs go to stderr, so that stdout stays the Markdown report.
 */
export function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  return startProcess(
    launcher,
    () => ['service'],
    (port) => ({
      NODE_OPTIONS: process.env.BENCH_SERVICE_NODE_OPTIONS ?? '',
      TESSERA_PORT: String(port),
      TESSERA_LOG_LEVEL: 'warn',
      TESSERA_SECRET: BENCH_SECRET,
      // autocannon keeps sending on a connection the service ended with `Connection: close`
      // (TESSERA_MAX_REQUESTS_PER_CONNECTION, 1,000): Node answers each request past the bound
      // 503, and the rows measured those. Clients that honour the close reconnect instead.
      TESSERA_MAX_REQUESTS_PER_CONNECTION: '100000',
      ...env,
    }),
    '/healthz',
  );
}
