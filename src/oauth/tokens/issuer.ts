import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { hashSecret, newId } from '../../crypto/ids.ts';
import type { TokenContext } from './context.ts';
import type { ActClaim } from '../../store/types.ts';
import { SIGNING_ALG } from '../keys/key-ring.ts';
import { OPAQUE_PREFIX } from './token-types.ts';

export interface Grant {
  orgId: string;
  subject: string;
  /** The client the token is issued to; absent for clientless exchanges and person tokens. */
  clientId?: string;
  scope: string;
  act?: ActClaim;
  /** RFC 8693 §4.4: who may act for this subject; carried along every exchange. */
  mayAct?: { sub: string };
  audience?: string[];
  resource?: string[];
  /** The opaque token this one was exchanged from (revoking it revokes this). */
  parentHash?: string;
  lifetimeSeconds: number;
}

/** Mints this server's tokens: opaque (stored as a hash) or RFC 9068 JWT access tokens. */
export class TokenIssuer {
  readonly #ctx: TokenContext;

  constructor(context: TokenContext) {
    this.#ctx = context;
  }

  get issuer(): string {
    return this.#ctx.issuer();
  }

  async opaque(grant: Grant): Promise<string> {
    const value = `${OPAQUE_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = this.#ctx.now();
    await this.#ctx.store.insertToken({
      hash: hashSecret(value), orgId: grant.orgId, clientId: grant.clientId ?? null, subject: grant.subject, scope: grant.scope,
      audience: grant.audience ?? [], resource: grant.resource ?? [], act: grant.act ?? null, mayAct: grant.mayAct ?? null,
      parentHash: grant.parentHash ?? null,
      issuedAt: now, expiresAt: now + grant.lifetimeSeconds * 1000, revokedAt: null,
    });
    return value;
  }

  async jwt(grant: Grant): Promise<string> {
    const { kid, privateKey } = await this.#ctx.keys.signingKey();
    const iat = Math.floor(this.#ctx.now() / 1000);
    const claims: Record<string, unknown> = { oid: grant.orgId };
    if (grant.clientId) claims.client_id = grant.clientId;
    if (grant.scope) claims.scope = grant.scope;
    if (grant.act) claims.act = grant.act;
    if (grant.mayAct) claims.may_act = grant.mayAct;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: 'at+jwt' })
      .setIssuer(this.#ctx.issuer())
      .setSubject(grant.subject)
      .setAudience(this.#ctx.issuer())
      .setIssuedAt(iat)
      .setExpirationTime(iat + grant.lifetimeSeconds)
      .setJti(newId('jti').slice(4))
      .sign(privateKey);
  }
}
