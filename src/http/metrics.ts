import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

/** A registry per app, so several services in one process (tests, demo) never share counters. */
export function installMetrics(app: FastifyInstance, prefix = 'tessera_'): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix });
  const requests = new Counter({
    name: `${prefix}http_requests_total`,
    help: 'HTTP requests by route template, method and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: 'HTTP request duration by route template',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    // The route template, never the raw URL: label cardinality stays bounded.
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: reply.statusCode });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
  return registry;
}
