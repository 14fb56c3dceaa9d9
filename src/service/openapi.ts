import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';

type DescribedRoute = Pick<RouteOptions, 'method' | 'url' | 'schema' | 'config'>;

const OPTIONS: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Tessera identity service',
      version: '0.1.0',
      description: 'Organisations, persons, OAuth2 clients. Non-OAuth responses use the envelope { result, meta, errors }.',
    },
    components: {
      securitySchemes: {
        orgId: { type: 'apiKey', in: 'header', name: 'Service-OrgID', description: 'The organisation addressed' },
        apiKey: { type: 'apiKey', in: 'header', name: 'Service-API-Key', description: 'An API key of that organisation' },
        personJwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: "A person JWT of this service (a login's or mint-token's)" },
      },
    },
  },
};

/**
 * The OpenAPI document of the routes `app` is given from now on, built when first asked for.
 * @fastify/swagger (with yaml, about 100 modules) would otherwise be in memory from start-up for
 * a document few ever fetch: the routes are only collected here, and on the first call replayed
 * into an app of their own, which serves nothing and compiles no schema, for @fastify/swagger
 * to describe.
 */
export function openapiDocument(app: FastifyInstance): () => Promise<unknown> {
  const routes: DescribedRoute[] = [];
  // @fastify/swagger leaves HEAD routes out (Fastify adds one for each GET), and so does this.
  // The console's pages are HTML for people, not operations of the API (docs/console.md).
  app.addHook('onRoute', ({ method, url, schema, config }) => {
    if (method !== 'HEAD' && !url.startsWith('/console')) routes.push({ method, url, schema, config });
  });
  let document: Promise<unknown> | undefined;
  return () => (document ??= build(routes));
}

async function build(routes: readonly DescribedRoute[]): Promise<unknown> {
  const { default: swagger } = await import('@fastify/swagger');
  const describer = Fastify({ exposeHeadRoutes: false });
  describer.setValidatorCompiler(() => () => true);
  describer.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await describer.register(swagger, OPTIONS);
  for (const route of routes) describer.route({ ...route, handler: async () => undefined });
  await describer.ready();
  return describer.swagger();
}
