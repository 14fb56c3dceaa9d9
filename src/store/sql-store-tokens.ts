import { UniqueViolation, type SqlDriver, type SqlExecutor } from './sql-driver.ts';
import { keysetPage } from './keyset-page.ts';
import {
  toAuditEvent, toOpaqueToken, toSigningKey, type AuditEventRow, type SigningKeyRow, type TokenRow,
} from './rows.ts';
import type { AuditEvent, OpaqueToken, Page, PageRequest, SigningKey } from './types.ts';

/** The token service's tables: signing keys, opaque tokens, audit events. */
export class TokenTables {
  readonly #db: SqlDriver;

  constructor(driver: SqlDriver) {
    this.#db = driver;
  }

  async listSigningKeys(): Promise<SigningKey[]> {
    return (await this.#db.all<SigningKeyRow>('SELECT * FROM signing_keys ORDER BY created_at DESC, kid DESC')).map(toSigningKey);
  }

  async ensureActiveSigningKey(candidate: SigningKey): Promise<SigningKey> {
    try {
      await insertKey(this.#db, candidate);
      return candidate;
    } catch (error) {
      // Another replica won the race for the single active slot: use its key.
      if (!(error instanceof UniqueViolation)) throw error;
      const [row] = await this.#db.all<SigningKeyRow>("SELECT * FROM signing_keys WHERE status = 'active'");
      return toSigningKey(row!);
    }
  }

  async rotateSigningKey(next: SigningKey, at: number): Promise<void> {
    await this.#db.transaction(async (tx) => {
      await tx.run("UPDATE signing_keys SET status = 'retired', retired_at = $1 WHERE status = 'active'", [at]);
      await insertKey(tx, next);
    });
  }

  async insertToken(token: OpaqueToken): Promise<void> {
    await this.#db.run(
      `INSERT INTO tokens (hash, org_id, client_id, subject, scope, audience, resource, act, may_act, parent_hash, issued_at, expires_at, revoked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        token.hash, token.orgId, token.clientId, token.subject, token.scope, JSON.stringify(token.audience), JSON.stringify(token.resource),
        token.act === null ? null : JSON.stringify(token.act), token.mayAct === null ? null : JSON.stringify(token.mayAct),
        token.parentHash, token.issuedAt, token.expiresAt, token.revokedAt,
      ],
    );
  }

  async findToken(hash: string): Promise<OpaqueToken | undefined> {
    const [row] = await this.#db.all<TokenRow>('SELECT * FROM tokens WHERE hash = $1', [hash]);
    return row && toOpaqueToken(row);
  }

  revokeTokenTree(hash: string, at: number): Promise<number> {
    return this.#db.run(
      `WITH RECURSIVE tree(hash) AS (
         SELECT hash FROM tokens WHERE hash = $1
         UNION SELECT t.hash FROM tokens t JOIN tree ON t.parent_hash = tree.hash)
       UPDATE tokens SET revoked_at = $2 WHERE hash IN (SELECT hash FROM tree) AND revoked_at IS NULL`,
      [hash, at],
    );
  }

  async isLineageRevoked(hash: string): Promise<boolean> {
    const rows = await this.#db.all(
      `WITH RECURSIVE lineage(hash, parent_hash, revoked_at, depth) AS (
         SELECT hash, parent_hash, revoked_at, 0 FROM tokens WHERE hash = $1
         UNION ALL SELECT t.hash, t.parent_hash, t.revoked_at, l.depth + 1 FROM tokens t JOIN lineage l ON t.hash = l.parent_hash WHERE l.depth < 32)
       SELECT 1 AS revoked FROM lineage WHERE revoked_at IS NOT NULL LIMIT 1`,
      [hash],
    );
    return rows.length > 0;
  }

  deleteExpiredTokens(before: number, limit: number): Promise<number> {
    // Bounded, so one purge never holds the write lock for long.
    return this.#db.run(
      'DELETE FROM tokens WHERE hash IN (SELECT hash FROM tokens WHERE expires_at < $1 ORDER BY expires_at LIMIT $2)',
      [before, limit],
    );
  }

  async recordAuditEvent(event: AuditEvent): Promise<void> {
    await this.#db.run('INSERT INTO audit_events (id, org_id, type, occurred_at, data) VALUES ($1, $2, $3, $4, $5)', [
      event.id, event.orgId, event.type, event.occurredAt, JSON.stringify(event.data),
    ]);
  }

  listAuditEvents(orgId: string, type: string | undefined, page: PageRequest): Promise<Page<AuditEvent>> {
    return keysetPage<AuditEventRow, AuditEvent>(this.#db, 'audit_events', orgId, page, toAuditEvent, type ? { column: 'type', value: type } : undefined);
  }
}

function insertKey(db: Pick<SqlDriver, 'run'>, key: SigningKey): Promise<number> {
  return db.run(
    'INSERT INTO signing_keys (kid, alg, public_jwk, sealed_private_jwk, status, created_at, retired_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [key.kid, key.alg, JSON.stringify(key.publicJwk), key.sealedPrivateJwk, key.status, key.createdAt, key.retiredAt],
  );
}

/**
 * Revokes every opaque token issued to or for this client or person, with every token exchanged
 * from them. Takes an executor, not the driver, so that it runs inside the transaction that
 * deletes the party: a party must never be gone while its tokens still work.
 */
export function revokeTokensOfParty(tx: SqlExecutor, orgId: string, partyId: string, at: number): Promise<number> {
  return tx.run(
    `WITH RECURSIVE tree(hash) AS (
       SELECT hash FROM tokens WHERE org_id = $1 AND (client_id = $2 OR subject = $2)
       UNION SELECT t.hash FROM tokens t JOIN tree ON t.parent_hash = tree.hash)
     UPDATE tokens SET revoked_at = $3 WHERE hash IN (SELECT hash FROM tree) AND revoked_at IS NULL`,
    [orgId, partyId, at],
  );
}
