import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import { Envelope, ErrorEnvelope } from '../http/envelope.ts';
import type { StoreConnection } from '../store/store.ts';

const Health = Type.Object({ status: Type.Literal('ok'), database: Type.String() });

/** Liveness with a database round trip, Prometheus metrics, and the OpenAPI document. */
export function opsRoutes(store: StoreConnection, registry: Registry, openapi: () => Promise<unknown>): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/healthz',
      {
        schema: { tags: ['ops'], summary: 'Health, including a database round trip', response: { 200: Envelope(Health), 503: ErrorEnvelope } },
      },
      async () => {
        await store.ping();
        return { result: { status: 'ok' as const, database: store.dialect } };
      },
    );

    app.get('/metrics', { schema: { tags: ['ops'], summary: 'Prometheus metrics' } }, async (_request, reply) =>
      reply.type(registry.contentType).send(await registry.metrics()),
    );

    app.get('/openapi.json', { schema: { hide: true } }, () => openapi());
  };
}
