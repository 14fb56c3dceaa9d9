import { availableParallelism } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { attemptMetrics as attemptMetricsIn } from '../authn/attempt-metrics.ts';
import type { ServiceConfig } from '../config/service-config.ts';
import { identityDirectory } from '../connections/identity-directory.ts';
import { connectionSecretBox } from '../connections/sealing.ts';
import { ConsoleSessions } from '../console/session.ts';
import { credentialTypeContext } from '../credentials/context.ts';
import type { Mailer } from '../email/mailer.ts';
import { loginServices } from '../methods/login-services.ts';
import { ClientKeySets } from '../oauth/client-key-sets.ts';
import type { KeyRing } from '../oauth/keys/key-ring.ts';
import { SvidVerifier } from '../oauth/spiffe/svid-verifier.ts';
import { TokenIssuer } from '../oauth/tokens/issuer.ts';
import { TokenReader } from '../oauth/tokens/reader.ts';
import type { Store } from '../store/store.ts';
import { verificationHasher } from '../verification/code.ts';

export interface SharedServiceOptions {
  store: Store;
  config: Pick<ServiceConfig, 'dev' | 'secret'> & Partial<Pick<ServiceConfig, 'loginsPerSource' | 'loginFailureTimeMs' | 'workers'>>;
  keys: KeyRing;
  issuer: () => string;
  now: () => number;
  mailer: Mailer;
}

/**
 * What more than one feature uses, each made once: the token issuer and reader, the attempt
 * metrics, the login services, and every helper keyed by TESSERA_SECRET (each under its own
 * purpose: crypto/derived-key.ts). The features' plugins are handed these, never the secret.
 */
export function sharedServices(app: FastifyInstance, registry: Registry, { store, config, keys, issuer, now, mailer }: SharedServiceOptions) {
  const tokenContext = { store, keys, issuer, now };
  const tokens = { issuer: new TokenIssuer(tokenContext), reader: new TokenReader(tokenContext) };
  // One metric for every door of login: a counter is the same whichever door counted on it.
  const attemptMetrics = attemptMetricsIn(registry);
  const credentials = credentialTypeContext(config.secret);
  const connectionBox = connectionSecretBox(config.secret);

  const oauth = {
    store,
    now,
    attemptMetrics,
    issuer: tokens.issuer,
    reader: tokens.reader,
    svids: new SvidVerifier({
      allowHttpLoopback: config.dev,
      now,
      onError: (error) => app.log.warn({ url: error.url, reason: error.message }, 'fetching a SPIFFE trust bundle failed'),
    }),
    clientKeys: new ClientKeySets({
      allowLoopback: config.dev,
      now,
      onError: (error) => app.log.warn({ reason: error.message }, "fetching a client's jwks_uri failed"),
    }),
  };
  app.addHook('onClose', () => Promise.all([oauth.clientKeys.close(), oauth.svids.close()]).then(() => undefined));
  const logins = loginServices({
    store,
    attemptMetrics,
    issuer: tokens.issuer,
    context: credentials,
    now,
    // Workers share the machine's cores: together they run one hash thread per core.
    ...(config.workers !== undefined && config.workers > 1 ? { hashThreads: Math.max(1, Math.floor(availableParallelism() / config.workers)) } : {}),
    ...(config.loginsPerSource === undefined ? {} : { loginsPerSource: config.loginsPerSource }),
    ...(config.loginFailureTimeMs === undefined ? {} : { failureTimeMs: config.loginFailureTimeMs }),
  });
  app.addHook('onClose', () => logins.close());
  const webauthn = { store, issuer: tokens.issuer, reader: tokens.reader, hashCode: credentials.hashCode, now, attemptMetrics };
  const connections = { store, box: connectionBox, dev: config.dev, now };
  const verification = {
    store,
    directory: identityDirectory(store, connectionBox, { allowLoopback: config.dev }),
    mailer,
    hasher: verificationHasher(config.secret),
    now,
  };
  // Secure cookies everywhere but development, which runs on http://localhost.
  const sessions = new ConsoleSessions(store, config.secret, now, { secure: !config.dev });
  const invitations = { store, issuer, now, mailer };
  const consoleDeps = { store, sessions, logins, webauthn, verification, connections, invitations, issuer, now, dev: config.dev };
  return { tokens, oauth, credentials, logins, webauthn, connections, verification, invitations, console: consoleDeps };
}
