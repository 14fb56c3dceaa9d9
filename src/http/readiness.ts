import type { KeyRing } from '../oauth/keys/key-ring.ts';
import { LATEST_SCHEMA_VERSION } from '../store/migrations.ts';
import type { StoreConnection } from '../store/store.ts';

export interface ReadinessDeps {
  store: StoreConnection;
  keys: Pick<KeyRing, 'signingKey'>;
  /** True from SIGTERM on: a load balancer must stop sending before the instance stops accepting. */
  stopping: () => boolean;
}

export type Readiness = { ready: true; database: StoreConnection['dialect']; schema_version: number; signing_key: string } | { ready: false; reason: string };

/**
 * Whether this instance can serve every request now: not stopping, its database answering with
 * every migration this release needs (a database restored from an older backup under a running
 * replica is not), and a signing key it can sign with. A schema ahead of this release is fine:
 * migrations only add (docs/operations.md, "Upgrades"), so during a rolling upgrade the old
 * replicas keep serving after the first new one has migrated.
 */
export async function checkReadiness({ store, keys, stopping }: ReadinessDeps): Promise<Readiness> {
  if (stopping()) return { ready: false, reason: 'this instance is shutting down' };
  let version: number;
  try {
    version = await store.schemaVersion();
  } catch {
    return { ready: false, reason: 'the database cannot be reached' };
  }
  if (version < LATEST_SCHEMA_VERSION) {
    return { ready: false, reason: `the database schema is at version ${version}, behind the ${LATEST_SCHEMA_VERSION} this release needs` };
  }
  try {
    const { kid } = await keys.signingKey();
    return { ready: true, database: store.dialect, schema_version: version, signing_key: kid };
  } catch {
    return { ready: false, reason: 'no signing key can be loaded (see the log; "tessera admin rotate-keys" makes one)' };
  }
}
