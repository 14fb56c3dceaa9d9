import type { FastifyInstance } from 'fastify';
import type { ServiceConfig } from '../config/service-config.ts';
import type { CredentialType } from '../credentials/credential-type.ts';
import type { Mailer } from '../email/mailer.ts';
import { openMailer } from '../email/open-mailer.ts';
import { purgeStaleRowsEvery } from '../housekeeping/purge-stale-rows.ts';
import { credentialTypes } from '../methods/registry.ts';
import { KeyRing } from '../oauth/keys/key-ring.ts';
import { purgeExpiredTokens } from '../oauth/tokens/purge.ts';
import { drainServer } from '../runtime/drain-server.ts';
import { addressBlockList, applyListenerPolicy } from '../runtime/listener-policy.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { buildApp } from './app.ts';

export interface RunningService {
  app: FastifyInstance;
  store: Store;
  /** The address the service listens on, e.g. http://127.0.0.1:8080. */
  url: string;
  issuer: string;
  /** How this instance sends email (TESSERA_SMTP_URL, or the development transport). */
  mailer: Mailer;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** The credential types offered instead of the registered ones (tests of the routes bring their own). */
  credentialTypes?: readonly CredentialType[];
  /** Show one-time codes in the development transport's log lines (the demo only). */
  revealCodes?: boolean;
  /**
   * The level of the mailer's own log when it is not the service's: the demo logs at warn but
   * its emails at info, so the development transport's line with the code reaches its terminal.
   */
  mailLogLevel?: ServiceConfig['logLevel'];
}

/** Opens the database (migrating it), builds the app and listens. */
export async function startService(config: ServiceConfig, options: ServiceOptions = {}): Promise<RunningService> {
  const { store, migrated, description } = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
  let app: FastifyInstance | undefined;
  try {
    const keys = new KeyRing(store, config.secret);
    await keys.init();
    // With port 0 the address is known only once listening; nothing is served before that.
    let issuer = config.issuer ?? '';
    let opened: Mailer | undefined;
    let stopping = false;
    app = await buildApp({
      stopping: () => stopping,
      store,
      config,
      keys,
      issuer: () => issuer,
      credentialTypes: options.credentialTypes ?? credentialTypes,
      openMailer: async (log) => {
        const mailLog = options.mailLogLevel === undefined ? log : log.child({}, { level: options.mailLogLevel });
        opened = await openMailer(config, mailLog, { revealCodes: options.revealCodes === true });
        return opened;
      },
    });
    if (!opened) throw new TypeError('buildApp did not open the mailer');
    const mailer = opened;
    app.log.info(`email: delivering through ${mailer.description}`);
    if (migrated.length > 0) app.log.info({ versions: migrated, database: description }, 'database migrated');
    if (!config.issuer && ['0.0.0.0', '::'].includes(config.host)) {
      app.log.warn('listening on all interfaces without TESSERA_ISSUER: tokens will name an unroutable issuer; set TESSERA_ISSUER to the public URL');
    }
    // After fastify's own server settings, which it applies when building the app.
    applyListenerPolicy(app.server, config.listener, addressBlockList(config.trustedProxies));
    await app.listen({ port: config.port, host: config.host });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    const url = `http://${host}:${port}`;
    issuer ||= url;
    const running = app;
    const stopTokenPurge = purgeExpiredTokens(store, config.tokenPurgeIntervalMs, (error) => running.log.warn({ err: error }, 'purging expired tokens failed'));
    const stopRowPurge = purgeStaleRowsEvery(store, config.tokenPurgeIntervalMs, (error) => running.log.warn({ err: error }, 'purging stale rows failed'));
    return {
      app: running,
      store,
      url,
      issuer,
      mailer,
      async close() {
        stopping = true;
        stopTokenPurge();
        stopRowPurge();
        // Serving on with /readyz failing, so that load balancers stop sending first.
        if (config.shutdown.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, config.shutdown.delayMs));
        const drained = await drainServer(running.server, () => running.close(), config.shutdown.timeoutMs);
        if (!drained) running.log.warn(`requests still in flight after TESSERA_SHUTDOWN_TIMEOUT (${config.shutdown.timeoutMs / 1000} s) were cut`);
        await mailer.close();
        await store.close();
      },
    };
  } catch (error) {
    await app?.close().catch(() => {});
    await store.close().catch(() => {});
    throw error;
  }
}
