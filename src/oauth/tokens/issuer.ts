import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { hashSecret, newId } from '../../crypto/ids.ts';
import type { Store } from '../../store/store.ts';
import type { TokenContext } from './context.ts';
import type { ActClaim } from '../../store/types.ts';
import { SIGNING_ALG, type KeyRing } from '../keys/key-ring.ts';
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
  readonly #store: Store;
  readonly #keys: KeyRing;
  readonly #issuer: () => string;
  readonly #now: () => number;

  constructor({ store, keys, issuer, now }: TokenContext) {
    [this.#store, this.#keys, this.#issuer, this.#now] = [store, keys, issuer, now];
  }

  get issuer(): string {
    return this.#issuer();
  }

  async opaque(grant: Grant): Promise<string> {
    const value = `${OPAQUE_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = this.#now();
    await this.#store.insertToken({
      hash: hashSecret(value), orgId: grant.orgId, clientId: grant.clientId ?? null, subject: grant.subject, scope: grant.scope,
      audience: grant.audience ?? [], resource: grant.resource ?? [], act: grant.act ?? null, mayAct: grant.mayAct ?? null,
      parentHash: grant.parentHash ?? null,
      issuedAt: now, expiresAt: now + grant.lifetimeSeconds * 1000, revokedAt: null,
    });
    return value;
  }

  async jwt(grant: Grant): Promise<string> {
    const { kid, privateKey } = await this.#keys.signingKey();
    const iat = Math.floor(this.#now() / 1000);
    const claims: Record<string, unknown> = { oid: grant.orgId };
    if (grant.clientId) claims.client_id = grant.clientId;
    if (grant.scope) claims.scope = grant.scope;
    if (grant.act) claims.act = grant.act;
    if (grant.mayAct) claims.may_act = grant.mayAct;
    return new SignJWT(claims)
      .setProtectedHeader({ alg: SIGNING_ALG, kid, typ: 'at+jwt' })
      .setIssuer(this.#issuer())
      .setSubject(grant.subject)
      .setAudience(this.#issuer())
      .setIssuedAt(iat)
      .setExpirationTime(iat + grant.lifetimeSeconds)
      .setJti(newId('jti').slice(4))
      .sign(privateKey);
  }
}
