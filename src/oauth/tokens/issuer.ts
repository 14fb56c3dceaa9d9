import { newId } from '../../crypto/ids.ts';
import type { ActClaim } from '../../store/types.ts';
import type { TokenContext } from './context.ts';
import { signEs256 } from './es256-jws.ts';
import { newOpaqueToken, opaqueTokenKey } from './opaque-token.ts';

/** What a token is issued for: its subject, client, scope, delegation and lifetime. */
export interface IssueRequest {
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
  /** RFC 8176 authentication method references, for a person JWT issued at a login (JWTs only). */
  amr?: string[];
  /** When the person proved who they are (ms), for a person JWT issued at a login: OpenID Connect's `auth_time` (JWTs only). */
  authTime?: number;
  /** The person's generation (design §5), for a token whose subject is a person: the JWT's `gen` (left out at 0), or the opaque token's record. */
  personGeneration?: number;
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

  async opaque(request: IssueRequest): Promise<string> {
    const now = this.#ctx.now();
    const value = newOpaqueToken(now);
    await this.#ctx.store.insertToken({
      hash: opaqueTokenKey(value),
      orgId: request.orgId,
      clientId: request.clientId ?? null,
      subject: request.subject,
      scope: request.scope,
      audience: request.audience ?? [],
      resource: request.resource ?? [],
      act: request.act ?? null,
      mayAct: request.mayAct ?? null,
      parentHash: request.parentHash ?? null,
      issuedAt: now,
      expiresAt: now + request.lifetimeSeconds * 1000,
      revokedAt: null,
      personGeneration: request.personGeneration ?? null,
    });
    return value;
  }

  async jwt(request: IssueRequest): Promise<string> {
    const { kid, privateKey } = await this.#ctx.keys.signingKey();
    const iat = Math.floor(this.#ctx.now() / 1000);
    // A claim left undefined here is left out of the token (JSON has no undefined).
    const claims = {
      oid: request.orgId,
      client_id: request.clientId,
      scope: request.scope || undefined,
      act: request.act,
      may_act: request.mayAct,
      amr: request.amr,
      auth_time: request.authTime === undefined ? undefined : Math.floor(request.authTime / 1000),
      // Generation 0 is what a token without `gen` is read as: most persons never raise theirs.
      gen: request.personGeneration || undefined,
    };
    // RFC 9068 §2.2: the registered claims every access token carries.
    const registered = {
      iss: this.#ctx.issuer(),
      sub: request.subject,
      aud: this.#ctx.issuer(),
      iat,
      exp: iat + request.lifetimeSeconds,
      jti: newId('jti').slice(4),
    };
    return signEs256({ kid, typ: 'at+jwt' }, { ...registered, ...claims }, privateKey);
  }
}
