import type { AddressInfo } from 'node:net';
import { logMailer } from '../../src/email/log-mailer.ts';
import { KeyRing } from '../../src/oauth/keys/key-ring.ts';
import { buildApp } from '../../src/service/app.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import type { Backend } from './backends.ts';
import { startTestServiceOver, TEST_SECRET, type TestService } from './service.ts';

/** A clock the test sets: the service reads `at` on every call. */
export interface TestClock {
  at: number;
}

export interface FrozenServiceOptions {
  /** The database to open (and drop at close) instead of a fresh one of the backend: one a test filled first. */
  database?: { url: string; drop: () => Promise<void> };
  /** The issuer URL, when tokens made elsewhere must verify here; by default the listening address. */
  issuer?: string;
  /** The store the app uses, made from the real one: for a test that must act between two steps of a request. */
  wrapStore?: (store: Store) => Store;
  /** TESSERA_LOGIN_FAILURE_TIME: a test of a hundred failures asks for the shortest, 100 ms. */
  loginFailureTimeMs?: number;
  /** TESSERA_DEV: URLs a tenant registers (a jwks_uri, an SVID bundle) may then be loopback http, as the test's servers are. */
  dev?: boolean;
}

/**
 * The real app on port 0 over a fresh database, with the service's clock (`now`: tokens, audit,
 * attempt limits, TOTP steps) frozen at `clock.at` until the test moves it.
 */
export async function startFrozenService(backend: Backend, clock: TestClock, options: FrozenServiceOptions = {}): Promise<TestService> {
  const database = options.database ?? (await backend.fresh());
  const { store } = await openStore(database.url);
  const now = () => clock.at;
  const keys = new KeyRing(store, TEST_SECRET, now);
  await keys.init();
  let url = '';
  const app = await buildApp({
    store: options.wrapStore ? options.wrapStore(store) : store,
    config: {
      dev: options.dev ?? false,
      bodyLimit: 1_048_576,
      logLevel: 'silent',
      secret: TEST_SECRET,
      ...(options.loginFailureTimeMs === undefined ? {} : { loginFailureTimeMs: options.loginFailureTimeMs }),
    },
    keys,
    issuer: () => options.issuer ?? url,
    now,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return startTestServiceOver({
    app,
    store,
    url,
    issuer: options.issuer ?? url,
    mailer: logMailer({ log: app.log, from: 'tessera@localhost.invalid' }),
    async close() {
      await app.close();
      await store.close();
      await database.drop();
    },
  });
}
