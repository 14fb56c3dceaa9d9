import type { KeyRing } from '../oauth/keys/key-ring.ts';
import { LATEST_SCHEMA_VERSION } from '../store/migrations/index.ts';
import { StorageUnavailableError, type StoreConnection } from '../store/store.ts';

export interface ReadinessDeps {
  store: StoreConnection;
  keys: Pick<KeyRing, 'signingKey'>;
  /** True from SIGTERM on: a load balancer must stop sending before the instance stops accepting. */
  stopping: () => boolean;
}

export type Readiness = { ready: true; database: StoreConnection['dialect']; schema_version: number; signing_key: string } | { ready: false; reason: string };

/** A probe waits this long for the database; a replica that slow should not get traffic. */
const PROBE_TIMEOUT_MS = 2_000;

/**
 * The check behind GET /readyz. Probes at once share one check (several balancers probing
 * together cost one query), and a check that takes longer than two seconds answers not ready.
 * Nothing is reused after it ends: the answer names the signing key, which a rotation changes. Later probes join a
 * check under way only while it is within those two seconds: one stuck on a dead connection
 * must not hold every probe after it to "not ready".
 */
export function readinessProbe(deps: ReadinessDeps): () => Promise<Readiness> {
  let running: { check: Promise<Readiness>; startedAt: number } | undefined;
  return async () => {
    if (deps.stopping()) return { ready: false, reason: 'this instance is shutting down' };
    const now = Date.now();
    let current = running;
    if (!current || now - current.startedAt >= PROBE_TIMEOUT_MS) {
      const started = { check: checkReadiness(deps), startedAt: now };
      running = current = started;
      void started.check.finally(() => {
        if (running === started) running = undefined;
      });
    }
    const deadlineMs = current.startedAt + PROBE_TIMEOUT_MS - now;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Readiness>((resolve) => {
      timer = setTimeout(() => resolve({ ready: false, reason: `the database did not answer within ${PROBE_TIMEOUT_MS / 1000} s` }), deadlineMs);
    });
    const report = await Promise.race([current.check, timeout]).finally(() => clearTimeout(timer));
    return report;
  };
}

/**
 * Whether this instance can serve every request now: its database answering with every
 * migration this release needs (a database restored from an older backup under a running
 * replica is not), and a signing key it can sign with. A schema ahead of this release is fine:
 * migrations only add (docs/operations.md, "Upgrades"), so during a rolling upgrade the old
 * replicas keep serving after the first new one has migrated.
 */
async function checkReadiness({ store, keys }: ReadinessDeps): Promise<Readiness> {
  const unreachable = { ready: false, reason: 'the database cannot be reached' } as const;
  let version: number;
  try {
    version = await store.schemaVersion();
  } catch {
    return unreachable;
  }
  if (version < LATEST_SCHEMA_VERSION) {
    return { ready: false, reason: `the database schema is at version ${version}, behind the ${LATEST_SCHEMA_VERSION} this release needs` };
  }
  try {
    const { kid } = await keys.signingKey();
    return { ready: true, database: store.dialect, schema_version: version, signing_key: kid };
  } catch (error) {
    // A reload of the keys that finds the database gone is the database's fault, not the keys'.
    if (error instanceof StorageUnavailableError) return unreachable;
    return { ready: false, reason: 'no signing key can be loaded (see the log; "tessera admin rotate-keys" makes one)' };
  }
}
