import { availableParallelism } from 'node:os';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { auditRoutes } from '../audit/routes.ts';
import { attemptMetrics as attemptMetricsIn } from '../authn/attempt-metrics.ts';
import { attemptRoutes } from '../authn/attempt-routes.ts';
import { oauthClientRoutes } from '../clients/routes.ts';
import type { ServiceConfig } from '../config/service-config.ts';
import { identityDirectory } from '../connections/identity-directory.ts';
import { connectionRoutes } from '../connections/routes.ts';
import { connectionSecretBox } from '../connections/sealing.ts';
import { consolePlugin } from '../console/plugin.ts';
import { ConsoleSessions } from '../console/session.ts';
import { credentialTypeContext } from '../credentials/context.ts';
import type { CredentialType } from '../credentials/credential-type.ts';
import { credentialRoutes } from '../credentials/routes.ts';
import { logMailer } from '../email/log-mailer.ts';
import type { Mailer } from '../email/mailer.ts';
import { DEVELOPMENT_FROM } from '../email/open-mailer.ts';
import { clientErrorHandler, installErrorHandling, MAX_PARAM_LENGTH, sendError } from '../http/error-handler.ts';
import { addJsonParser } from '../http/json-body.ts';
import { installMetrics } from '../http/metrics.ts';
import { validatorCompiler } from '../http/validation.ts';
import { loginServices } from '../methods/login-services.ts';
import { webauthnRoutes } from '../methods/passkey/routes.ts';
import { credentialTypes as registeredCredentialTypes } from '../methods/registry.ts';
import { authnRoutes } from '../methods/routes.ts';
import { registerMetadata } from '../oauth/endpoints/metadata.ts';
import { oauthEndpoints } from '../oauth/endpoints/plugin.ts';
import type { KeyRing } from '../oauth/keys/key-ring.ts';
import { SvidVerifier } from '../oauth/spiffe/svid-verifier.ts';
import { TokenIssuer } from '../oauth/tokens/issuer.ts';
import { TokenReader } from '../oauth/tokens/reader.ts';
import { organizationRoutes } from '../organizations/routes.ts';
import { personRoutes } from '../persons/routes.ts';
import { personTokenRoutes } from '../persons/token-routes.ts';
import { SCIM_PREFIX, scimServer } from '../scim/plugin.ts';
import type { Store } from '../store/store.ts';
import { verificationHasher } from '../verification/code.ts';
import { helpdeskVerificationRoutes, integrationVerificationRoutes } from '../verification/routes.ts';
import { openapiDocument } from './openapi.ts';
import { opsRoutes } from './ops-routes.ts';
import { readinessProbe } from './readiness.ts';

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
  /** The credential types offered; by default those of src/credentials/registry.ts. */
  credentialTypes?: readonly CredentialType[];
  /** True once the instance was told to stop (/readyz fails from then on); never, by default. */
  stopping?: () => boolean;
}

/** Headers that carry credentials: redacted should any log line ever include headers. */
const REDACTED = ['req.headers.authorization', 'req.headers["service-api-key"]', 'req.headers.cookie'];

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
  const app = Fastify({
    logger: { level: config.logLevel, redact: { paths: REDACTED, censor: '[redacted]' } },
    bodyLimit: config.bodyLimit,
    // request.ip is the peer unless it is a listed proxy; then X-Forwarded-For's nearest untrusted hop.
    trustProxy: config.trustedProxies?.length ? config.trustedProxies : false,
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: sendError,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // JSON only: a text/plain body would otherwise reach validation as a string. An empty body
  // is no body, so `curl -X DELETE -H 'content-type: application/json'` works; routes that
  // need one say so through their schema ("body: must be an object").
  app.removeContentTypeParser(['text/plain', 'application/json']);
  addJsonParser(app, 'application/json');
  app.setValidatorCompiler(validatorCompiler);
  installErrorHandling(app);
  const registry = installMetrics(app);

  const openapi = openapiDocument(app);

  await app.register(opsRoutes(readinessProbe({ store, keys, stopping }), registry, openapi));
  await app.register(organizationRoutes(store, { dev: config.dev, now }));
  await app.register(personRoutes(store, now));
  await app.register(oauthClientRoutes(store, now));

  const tokenContext = { store, keys, issuer, now };
  const tokenIssuer = new TokenIssuer(tokenContext);
  const attemptMetrics = attemptMetricsIn(registry);
  const deps = {
    store,
    now,
    attemptMetrics,
    issuer: tokenIssuer,
    reader: new TokenReader(tokenContext),
    svids: new SvidVerifier({
      allowHttpLoopback: config.dev,
      now,
      onError: (error) => app.log.warn({ url: error.url, reason: error.message }, 'fetching a SPIFFE trust bundle failed'),
    }),
  };
  await app.register(oauthEndpoints(deps));
  registerMetadata(app, keys, issuer);
  await app.register(personTokenRoutes(store, tokenIssuer, now));
  await app.register(credentialRoutes(store, { types: credentialTypes, context: credentialTypeContext(config.secret), now }));
  // One metric for both doors of login: a counter is the same whichever door counted on it.
  const logins = loginServices({
    store,
    attemptMetrics,
    issuer: tokenIssuer,
    context: credentialTypeContext(config.secret),
    now,
    // Workers share the machine's cores: together they run one hash thread per core.
    ...(config.workers !== undefined && config.workers > 1 ? { hashThreads: Math.max(1, Math.floor(availableParallelism() / config.workers)) } : {}),
    ...(config.loginsPerSource === undefined ? {} : { loginsPerSource: config.loginsPerSource }),
    ...(config.loginFailureTimeMs === undefined ? {} : { failureTimeMs: config.loginFailureTimeMs }),
  });
  app.addHook('onClose', () => logins.close());
  await app.register(authnRoutes(logins, deps.reader));
  await app.register(attemptRoutes(store, now, logins.context.hashCode));
  const webauthn = { store, issuer: tokenIssuer, reader: deps.reader, hashCode: credentialTypeContext(config.secret).hashCode, now, attemptMetrics };
  await app.register(webauthnRoutes(webauthn));
  await app.register(auditRoutes(store));
  const connections = { store, box: connectionSecretBox(config.secret), issuer, dev: config.dev, now };
  await app.register(connectionRoutes(connections));
  await app.register(scimServer({ store, issuer, now }), { prefix: SCIM_PREFIX });
  const verification = {
    store,
    directory: identityDirectory(store, connectionSecretBox(config.secret), { allowLoopback: config.dev }),
    mailer: await openMailer(app.log),
    hasher: verificationHasher(config.secret),
    now,
  };
  await app.register(integrationVerificationRoutes(verification));
  await app.register(helpdeskVerificationRoutes(verification, deps.reader));
  // Secure cookies everywhere but development, which runs on http://localhost.
  const sessions = new ConsoleSessions(store, config.secret, now, { secure: !config.dev });
  await app.register(consolePlugin({ store, sessions, logins, webauthn, verification, connections, now, dev: config.dev }));
  return app;
}
