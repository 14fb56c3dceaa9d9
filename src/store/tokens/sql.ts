import { type Json, json, optionalTime, time } from '../rows.ts';
import type { SqlDriver, SqlExecutor } from '../sql-driver.ts';
import type { OpaqueToken, TokenStore } from './store.ts';

interface TokenRow {
  hash: string;
  org_id: string;
  client_id: string | null;
  subject: string;
  scope: string;
  audience: Json;
  resource: Json;
  act: Json | null;
  may_act: Json | null;
  parent_hash: string | null;
  issued_at: number;
  expires_at: number;
  revoked_at: number | null;
  person_generation: number | string | null;
}

function toOpaqueToken(row: TokenRow): OpaqueToken {
  return {
    hash: row.hash,
    orgId: row.org_id,
    clientId: row.client_id,
    subject: row.subject,
    scope: row.scope,
    audience: json(row.audience),
    resource: json(row.resource),
    act: row.act === null ? null : json(row.act),
    mayAct: row.may_act === null || row.may_act === undefined ? null : json(row.may_act),
    parentHash: row.parent_hash,
    issuedAt: time(row.issued_at),
    expiresAt: time(row.expires_at),
    revokedAt: optionalTime(row.revoked_at),
    personGeneration: row.person_generation === null || row.person_generation === undefined ? null : Number(row.person_generation),
  };
}

/** The opaque token store over either SQL dialect: table tokens. */
export function sqlTokenStore(db: SqlDriver): TokenStore {
  return {
    async insertToken(token: OpaqueToken): Promise<void> {
      await db.run(
        `INSERT INTO tokens (hash, org_id, client_id, subject, scope, audience, resource, act, may_act, parent_hash, issued_at, expires_at, revoked_at, person_generation)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
          token.hash,
          token.orgId,
          token.clientId,
          token.subject,
          token.scope,
          JSON.stringify(token.audience),
          JSON.stringify(token.resource),
          token.act === null ? null : JSON.stringify(token.act),
          token.mayAct === null ? null : JSON.stringify(token.mayAct),
          token.parentHash,
          token.issuedAt,
          token.expiresAt,
          token.revokedAt,
          token.personGeneration,
        ],
      );
    },

    async findToken(hash: string): Promise<OpaqueToken | undefined> {
      const [row] = await db.all<TokenRow>('SELECT * FROM tokens WHERE hash = $1', [hash]);
      return row && toOpaqueToken(row);
    },

    revokeTokenTree(hash: string, at: number): Promise<number> {
      return db.run(
        `WITH RECURSIVE tree(hash) AS (
           SELECT hash FROM tokens WHERE hash = $1
           UNION SELECT t.hash FROM tokens t JOIN tree ON t.parent_hash = tree.hash)
         UPDATE tokens SET revoked_at = $2 WHERE hash IN (SELECT hash FROM tree) AND revoked_at IS NULL`,
        [hash, at],
      );
    },

    async isLineageRevoked(hash: string): Promise<boolean> {
      const rows = await db.all(
        `WITH RECURSIVE lineage(hash, parent_hash, revoked_at, depth) AS (
           SELECT hash, parent_hash, revoked_at, 0 FROM tokens WHERE hash = $1
           UNION ALL SELECT t.hash, t.parent_hash, t.revoked_at, l.depth + 1 FROM tokens t JOIN lineage l ON t.hash = l.parent_hash WHERE l.depth < 32)
         SELECT 1 AS revoked FROM lineage WHERE revoked_at IS NOT NULL LIMIT 1`,
        [hash],
      );
      return rows.length > 0;
    },

    deleteExpiredTokens(before: number, limit: number): Promise<number> {
      // Bounded, so one purge never holds the write lock for long.
      return db.run('DELETE FROM tokens WHERE hash IN (SELECT hash FROM tokens WHERE expires_at < $1 ORDER BY expires_at LIMIT $2)', [before, limit]);
    },
  };
}

/**
 * Revokes every opaque token issued to or for this client or person, with every token exchanged
 * from them. A PartyDeletionStep: it takes the executor of the transaction that deletes the
 * party, so the deletion and the revocation commit together or not at all.
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
