import { type Json, json, optionalTime, time } from '../rows.ts';
import { type SqlDriver, type SqlExecutor, UniqueViolation } from '../sql-driver.ts';
import type { SigningKey, SigningKeyStore } from './store.ts';

interface SigningKeyRow {
  kid: string;
  alg: string;
  public_jwk: Json;
  sealed_private_jwk: string;
  status: string;
  created_at: number;
  retired_at: number | null;
}

function toSigningKey(row: SigningKeyRow): SigningKey {
  return {
    kid: row.kid,
    alg: row.alg as SigningKey['alg'],
    publicJwk: json(row.public_jwk),
    sealedPrivateJwk: row.sealed_private_jwk,
    status: row.status as SigningKey['status'],
    createdAt: time(row.created_at),
    retiredAt: optionalTime(row.retired_at),
  };
}

function insertKey(db: SqlExecutor, key: SigningKey): Promise<number> {
  return db.run('INSERT INTO signing_keys (kid, alg, public_jwk, sealed_private_jwk, status, created_at, retired_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    key.kid,
    key.alg,
    JSON.stringify(key.publicJwk),
    key.sealedPrivateJwk,
    key.status,
    key.createdAt,
    key.retiredAt,
  ]);
}

/** The signing key store over either SQL dialect: table signing_keys. */
export function sqlSigningKeyStore(db: SqlDriver): SigningKeyStore {
  return {
    async listSigningKeys(): Promise<SigningKey[]> {
      return (await db.all<SigningKeyRow>('SELECT * FROM signing_keys ORDER BY created_at DESC, kid DESC')).map(toSigningKey);
    },

    async ensureActiveSigningKey(candidate: SigningKey): Promise<SigningKey> {
      try {
        await insertKey(db, candidate);
        return candidate;
      } catch (error) {
        // Another replica won the race for the single active slot: use its key.
        if (!(error instanceof UniqueViolation)) throw error;
        const [row] = await db.all<SigningKeyRow>("SELECT * FROM signing_keys WHERE status = 'active'");
        return toSigningKey(row!);
      }
    },

    async rotateSigningKey(next: SigningKey, at: number): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.run("UPDATE signing_keys SET status = 'retired', retired_at = $1 WHERE status = 'active'", [at]);
        await insertKey(tx, next);
      });
    },
  };
}
