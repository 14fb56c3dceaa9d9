import type { ActClaim, OpaqueToken } from '../../store/types.ts';
import { ClaimProblem, checkAccessTokenClaims } from './access-token-claims.ts';
import type { TokenContext } from './context.ts';
import { MalformedClaim, readActClaim, readMayActClaim } from './delegation-claims.ts';
import { type JwsProblem, JwsRejected, verifyEs256 } from './es256-jws.ts';
import { opaqueTokenKey } from './opaque-token.ts';

/** A JWT's claims set, as verified. */
export type JWTPayload = Record<string, unknown>;

/** A token of this server, verified and current. */
export interface OwnToken {
  format: 'jwt' | 'opaque';
  orgId: string;
  subject: string;
  clientId: string | undefined;
  scope: string;
  act: ActClaim | undefined;
  mayAct: { sub: string } | undefined;
  issuedAt: number;
  expiresAt: number;
  /** RFC 8176 methods the person proved, for a person JWT issued at a login; undefined for every other token (mint-token's included). */
  amr: readonly string[] | undefined;
  /** When the person proved them (ms), with `amr`. */
  authTime: number | undefined;
  /** The subject person's generation the token was issued at (`gen`); 0 for a token that names none (design §5). */
  personGeneration: number;
  /** For opaque tokens: the stored record (its hash links exchanged tokens). */
  record?: OpaqueToken;
  claims?: JWTPayload;
}

/** Why a token was not accepted; the message is safe to return to the caller. */
export class TokenRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenRejected';
  }
}

const MAX_JWT_LENGTH = 8_192;
/** For exp and nbf: replicas' clocks differ by a little. */
const CLOCK_TOLERANCE_S = 5;
/** A token issued further ahead than this came from a badly skewed clock or was forged. */
const MAX_IAT_SKEW_S = 60;

/** Verifies this server's JWTs against its key ring and looks opaque tokens up by hash. */
export class TokenReader {
  readonly #ctx: TokenContext;

  constructor(context: TokenContext) {
    this.#ctx = context;
  }

  async jwt(value: string): Promise<OwnToken> {
    if (value.length > MAX_JWT_LENGTH) throw new TokenRejected(`is longer than ${MAX_JWT_LENGTH} characters`);
    const now = this.#ctx.now();
    let header: Record<string, unknown>;
    let payload: JWTPayload;
    try {
      ({ header, payload } = await verifyEs256(value, (kid) => this.#ctx.keys.verificationKey(kid)));
      checkAccessTokenClaims(header, payload, {
        issuer: this.#ctx.issuer(),
        now: Math.floor(now / 1000),
        clockTolerance: CLOCK_TOLERANCE_S,
        maxIatSkew: MAX_IAT_SKEW_S,
      });
    } catch (error) {
      if (error instanceof JwsRejected) throw new TokenRejected(JWS_PROBLEMS[error.problem]);
      throw error instanceof ClaimProblem ? new TokenRejected(error.message) : error;
    }
    const { oid, sub, iat, exp } = payload as { oid: string; sub: string; iat: number; exp: number };
    let act: ActClaim | undefined;
    let mayAct: { sub: string } | undefined;
    try {
      act = readActClaim(payload.act);
      mayAct = readMayActClaim(payload.may_act);
    } catch (error) {
      throw error instanceof MalformedClaim ? new TokenRejected(`has a malformed claim: ${error.message}`) : error;
    }
    return {
      format: 'jwt',
      orgId: oid,
      subject: sub,
      clientId: typeof payload.client_id === 'string' ? payload.client_id : undefined,
      scope: typeof payload.scope === 'string' ? payload.scope : '',
      act,
      mayAct,
      issuedAt: iat * 1000,
      expiresAt: exp * 1000,
      ...proofClaims(payload),
      claims: payload,
    };
  }

  async opaque(value: string): Promise<OwnToken> {
    const record = value.length <= 128 ? await this.#ctx.store.findToken(opaqueTokenKey(value)) : undefined;
    if (!record) throw new TokenRejected('is not a token of this server');
    if (record.revokedAt !== null) throw new TokenRejected('has been revoked');
    if (record.expiresAt <= this.#ctx.now()) throw new TokenRejected('has expired');
    if (record.parentHash !== null && (await this.#ctx.store.isLineageRevoked(record.parentHash))) {
      throw new TokenRejected('was exchanged from a token that has been revoked');
    }
    return {
      format: 'opaque',
      orgId: record.orgId,
      subject: record.subject,
      clientId: record.clientId ?? undefined,
      scope: record.scope,
      act: record.act ?? undefined,
      mayAct: record.mayAct ?? undefined,
      issuedAt: record.issuedAt,
      expiresAt: record.expiresAt,
      amr: undefined,
      authTime: undefined,
      personGeneration: record.personGeneration ?? 0,
      record,
    };
  }
}

/**
 * What a person JWT says of its sign-in. Only this server signs these claims, so a malformed one
 * never comes from it: such a token is read as proving nothing (no amr) and as of generation 0.
 */
function proofClaims(payload: JWTPayload): Pick<OwnToken, 'amr' | 'authTime' | 'personGeneration'> {
  const { amr, auth_time: authTime, gen } = payload;
  const proved = Array.isArray(amr) && amr.length > 0 && amr.every((value) => typeof value === 'string') ? (amr as string[]) : undefined;
  return {
    amr: proved,
    // Number.isFinite is false for anything but a finite number.
    authTime: proved && Number.isFinite(authTime) ? (authTime as number) * 1000 : undefined,
    personGeneration: Number.isSafeInteger(gen) ? Math.max(gen as number, 0) : 0,
  };
}

const JWS_PROBLEMS: Record<JwsProblem, string> = {
  malformed: 'is not a well-formed JWT',
  algorithm: 'uses a signing algorithm this server does not accept',
  unsupported_header: 'uses a JWS header parameter this server does not accept ("crit" or "b64")',
  unknown_key: 'is signed with a key this server does not know',
  signature: 'has an invalid signature',
};
