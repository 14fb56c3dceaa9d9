import { Pool } from 'undici';
import type { LoadOptions, LoadResult } from './load.ts';

/** How often the pacer wakes: the requests due since the last tick are sent together, so arrivals are even to within this. */
const TICK_MS = 2;

/**
 * An open-loop load: `rate` requests a second on a fixed schedule (every TICK_MS, the requests
 * due by then), whatever the answers' latency, over up to `connections` keep-alive connections. autocannon's own rate option is a
 * budget per connection per second, spent at full speed from the start of each second: half
 * the rate is a saturated half-second and an idle one, which is no lower load at all. Latency
 * is measured from when a request was due, so a request that waited for a free connection
 * counts its wait (no coordinated omission), and so does the tick's own delay (up to TICK_MS,
 * more if this process's event loop lags): paced percentiles are that much high. Throughput
 * counts the answers over the time until the last one, so an overloaded target reads below
 * the offered rate.
 */
export async function pacedLoad(options: LoadOptions & { rate: number }): Promise<LoadResult> {
  const { name, url, method = 'GET', headers = {}, body, perRequestHeaders, perRequestPath, connections = 50, seconds = 10, rate } = options;
  if (!(rate > 0)) throw new RangeError(`pacedLoad needs a rate above 0, not ${rate}`);
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let sent = 0;
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  const send = (due: number) => {
    const request = pool
      .request({
        method,
        path: perRequestPath?.() ?? `${target.pathname}${target.search}`,
        headers: { ...headers, ...perRequestHeaders?.() },
        body: body?.() ?? null,
      })
      .then(async (answer) => {
        await answer.body.dump();
        latencies.push(performance.now() - due);
        statuses[answer.statusCode] = (statuses[answer.statusCode] ?? 0) + 1;
      })
      .catch(() => {
        errors++;
      })
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
  };
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = performance.now() - started;
      if (elapsed >= seconds * 1000) {
        clearInterval(timer);
        return resolve();
      }
      // Each request is due at its own instant on the schedule; those that fell due since the last tick go now.
      for (const due = Math.floor((elapsed / 1000) * rate); sent < due; sent++) send(started + (sent * 1000) / rate);
    }, TICK_MS);
  });
  await Promise.all(inFlight);
  const elapsedSeconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  const answered = latencies.length;
  const ok = Object.entries(statuses).reduce((sum, [code, count]) => sum + (code.startsWith('2') ? count : 0), 0);
  return { name, requests: answered, rps: Math.round(answered / elapsedSeconds), p50: at(0.5), p99: at(0.99), non2xx: answered - ok, errors, statuses };
}
