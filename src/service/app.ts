import { createServer, type RequestListener, type ServerOptions } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { auditRoutes } from '../audit/routes.ts';
import { attemptRoutes } from '../authn/attempt-routes.ts';
import { oauthClientRoutes } from '../clients/routes.ts';
import type { ServiceConfig } from '../config/service-config.ts';
import { connectionRoutes } from '../connections/routes.ts';
import { consolePlugin } from '../console/plugin.ts';
import type { CredentialType } from '../credentials/credential-type.ts';
import { credentialRoutes } from '../credentials/routes.ts';
import { logMailer } from '../email/log-mailer.ts';
import type { Mailer } from '../email/mailer.ts';
import { DEVELOPMENT_FROM } from '../email/open-mailer.ts';
import { clientErrorHandler, installErrorHandling, MAX_PARAM_LENGTH, sendError } from '../http/error-handler.ts';
import { addJsonParser } from '../http/json-body.ts';
import { installMetrics } from '../http/metrics.ts';
import { validatorCompiler } from '../http/validation.ts';
import { redactInvitationToken } from '../invitations/link.ts';
import { invitationRoutes } from '../invitations/routes.ts';
import { webauthnRoutes } from '../methods/passkey/routes.ts';
import { credentialTypes as registeredCredentialTypes } from '../methods/registry.ts';
import { authnRoutes } from '../methods/routes.ts';
import { oauthService } from '../oauth/endpoints/plugin.ts';
import type { KeyRing } from '../oauth/keys/key-ring.ts';
import { organizationRoutes } from '../organizations/routes.ts';
import { personRoutes } from '../persons/routes.ts';
import { SCIM_PREFIX, scimServer } from '../scim/plugin.ts';
import type { Store } from '../store/store.ts';
import { nameRequestSpan, tracedRequests } from '../telemetry/server-spans.ts';
import { traceBoundChild, traceFields, tracingOn } from '../telemetry/spans.ts';
import { verificationRoutes } from '../verification/routes.ts';
import { openapiDocument } from './openapi.ts';
import { opsRoutes } from './ops-routes.ts';
import { readinessProbe } from './readiness.ts';
import { sharedServices } from './services.ts';

export interface AppOptions {
  store: Store;
  config: Pick<ServiceConfig, 'dev' | 'bodyLimit' | 'logLevel' | 'secret'> &
    Partial<Pick<ServiceConfig, 'trustedProxies' | 'loginsPerSource' | 'loginFailureTimeMs' | 'workers'>>;
  keys: KeyRing;
  /** The public base URL; read per request, since with port 0 it is known only after listening. */
  issuer: () => string;
  now?: () => number;
  /** Opens the mailer with the app's logger; by default the development transport (the log, codes masked). */
  openMailer?: (log: FastifyBaseLogger) => Mailer | Promise<Mailer>;
  /** The credential types offered; by default those of src/methods/registry.ts. */
  credentialTypes?: readonly CredentialType[];
  /** True once the instance was told to stop (/readyz fails from then on); never, by default. */
  stopping?: () => boolean;
}

/** Headers that carry credentials: redacted should any log line ever include headers. */
const REDACTED = ['req.headers.authorization', 'req.headers["service-api-key"]', 'req.headers.cookie'];

/**
 * The service: the HTTP toolkit, the services the features share (built once, services.ts),
 * then each feature's plugin. The order is the OpenAPI document's.
 */
export async function buildApp({
  store,
  config,
  keys,
  issuer,
  now = Date.now,
  credentialTypes = registeredCredentialTypes,
  openMailer = (log) => logMailer({ log, from: DEVELOPMENT_FROM }),
  stopping = () => false,
}: AppOptions): Promise<FastifyInstance> {
  const app = withToolkit(config);
  const registry = installMetrics(app);
  const openapi = openapiDocument(app);
  const shared = sharedServices(app, registry, { store, config, keys, issuer, now, mailer: await openMailer(app.log) });
  const { tokens, credentials } = shared;

  await app.register(opsRoutes({ readiness: readinessProbe({ store, keys, stopping }), registry, openapi }));
  await app.register(organizationRoutes({ store, dev: config.dev, now }));
  await app.register(personRoutes({ store, issuer: tokens.issuer, now }));
  await app.register(invitationRoutes(shared.invitations));
  await app.register(oauthClientRoutes({ store, dev: config.dev, now }));
  await app.register(oauthService(shared.oauth, { keys, issuer }));
  await app.register(credentialRoutes(store, { types: credentialTypes, context: credentials, now }));
  await app.register(authnRoutes(shared.logins, tokens.reader));
  await app.register(attemptRoutes(store, now, credentials.hashCode));
  await app.register(webauthnRoutes(shared.webauthn));
  await app.register(auditRoutes({ store }));
  await app.register(connectionRoutes({ ...shared.connections, issuer }));
  await app.register(scimServer({ store, issuer, now }), { prefix: SCIM_PREFIX });
  await app.register(verificationRoutes(shared.verification, tokens.reader));
  await app.register(consolePlugin(shared.console));
  return app;
}

/** Fastify with what every route of the service relies on: its logger, parsers, validation and error answers. */
function withToolkit(config: AppOptions['config']) {
  const app = Fastify({
    logger: {
      level: config.logLevel,
      mixin: traceFields,
      redact: { paths: REDACTED, censor: '[redacted]' },
      // Fastify's own request fields, with a URL that carries a secret (an invitation link's token) redacted.
      serializers: {
        req: (request: FastifyRequest) => ({
          method: request.method,
          url: redactInvitationToken(request.url),
          host: request.host,
          remoteAddress: request.ip,
          remotePort: request.socket?.remotePort,
        }),
      },
    },
    bodyLimit: config.bodyLimit,
    // request.ip is the peer unless it is a listed proxy; then X-Forwarded-For's nearest untrusted hop.
    trustProxy: config.trustedProxies?.length ? config.trustedProxies : false,
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: sendError,
    clientErrorHandler,
    ...(tracingOn()
      ? {
          // Our own server so each request can be a span; its timeouts are the listener policy's
          // (applied by startService). Fastify binds a factory's server to one address only:
          // with tracing on, TESSERA_HOST=localhost listens on the first address it resolves to.
          serverFactory: (handler: RequestListener, options: { http?: ServerOptions }) => createServer(options.http ?? {}, tracedRequests(handler)),
          childLoggerFactory: traceBoundChild,
        }
      : {}),
  }).withTypeProvider<TypeBoxTypeProvider>();
  if (tracingOn()) {
    app.addHook('onRequest', async (request) => nameRequestSpan(request.method, request.routeOptions.url ?? 'unmatched'));
  }

  // JSON only: a text/plain body would otherwise reach validation as a string. An empty body
  // is no body, so `curl -X DELETE -H 'content-type: application/json'` works; routes that
  // need one say so through their schema ("body: must be an object").
  app.removeContentTypeParser(['text/plain', 'application/json']);
  addJsonParser(app, 'application/json');
  app.setValidatorCompiler(validatorCompiler);
  installErrorHandling(app);
  return app;
}
