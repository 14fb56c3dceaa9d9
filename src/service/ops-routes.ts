import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import { ApiError } from '../errors/api-error.ts';
import { Envelope, ErrorEnvelope } from '../http/envelope.ts';
import type { Readiness } from './readiness.ts';

const Alive = Type.Object({ status: Type.Literal('ok') });
const Ready = Type.Object({
  status: Type.Literal('ready'),
  database: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  schema_version: Type.Integer(),
  signing_key: Type.String(),
});

export interface OpsRouteOptions {
  readiness: () => Promise<Readiness>;
  registry: Registry;
  openapi: () => Promise<unknown>;
}

/** Liveness, readiness, Prometheus metrics, and the OpenAPI document. */
export function opsRoutes({ readiness, registry, openapi }: OpsRouteOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    // Alive means the event loop answers: no database work, so a database outage does not
    // make an orchestrator restart every replica at once.
    app.get(
      '/healthz',
      { schema: { tags: ['ops'], summary: 'Liveness: the process answers', response: { 200: Envelope(Alive), 503: ErrorEnvelope } } },
      async () => ({ result: { status: 'ok' as const } }),
    );

    app.get(
      '/readyz',
      {
        schema: {
          tags: ['ops'],
          summary: 'Readiness: database reachable, schema current, a signing key loaded, not shutting down',
          response: { 200: Envelope(Ready), 503: ErrorEnvelope },
        },
      },
      async () => {
        const report = await readiness();
        if (!report.ready) throw new ApiError('SERVICE_NOT_READY', `service: not ready: ${report.reason}`, { 'retry-after': '1' });
        const { ready: _, ...result } = report;
        return { result: { status: 'ready' as const, ...result } };
      },
    );

    app.get('/metrics', { schema: { tags: ['ops'], summary: 'Prometheus metrics' } }, async (_request, reply) =>
      reply.type(registry.contentType).send(await registry.metrics()),
    );

    app.get('/openapi.json', { schema: { hide: true } }, () => openapi());
  };
}
