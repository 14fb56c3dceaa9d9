/** What an RFC 8693 `act` claim holds: the actor, and the actor before it, newest first. */
export interface ActClaim {
  sub: string;
  act?: ActClaim;
}

export interface OpaqueToken {
  /** SHA-256 of the token value; the value itself is never stored. */
  hash: string;
  orgId: string;
  /** The client the token was issued to; an opaque subject is bound to it. */
  clientId: string | null;
  subject: string;
  /** Space-delimited, possibly empty. */
  scope: string;
  audience: string[];
  resource: string[];
  act: ActClaim | null;
  /** RFC 8693 §4.4, carried from the subject: the only actor that may exchange this token. */
  mayAct: { sub: string } | null;
  /** The opaque token this one was exchanged from; revoking that revokes this. */
  parentHash: string | null;
  issuedAt: number;
  expiresAt: number;
  revokedAt: number | null;
  /**
   * The subject person's generation when the token was issued (design §5); null for a token whose
   * subject is no person. One of an earlier generation than its person's is refused when read,
   * as a JWT is: a raise also revokes the person's tokens, but one issued concurrently with the
   * raise would escape that revocation.
   */
  personGeneration: number | null;
}

/** Opaque tokens, kept by hash, with the lineage of exchanges that revocation follows. */
export interface TokenStore {
  insertToken(token: OpaqueToken): Promise<void>;
  findToken(hash: string): Promise<OpaqueToken | undefined>;
  /** Revokes the token and every token exchanged from it, transitively; returns how many it revoked. */
  revokeTokenTree(hash: string, at: number): Promise<number>;
  /**
   * Whether this token or any token it was exchanged from is revoked. Checked when a token
   * is used, so a token exchanged concurrently with its parent's revocation is caught too.
   */
  isLineageRevoked(hash: string): Promise<boolean>;
  /** Deletes up to `limit` opaque tokens that expired before `before`; returns how many. */
  deleteExpiredTokens(before: number, limit: number): Promise<number>;
}
