import { type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import { hashSecret } from '../../crypto/ids.ts';
import type { ActClaim, OpaqueToken } from '../../store/types.ts';
import { SIGNING_ALG } from '../keys/key-ring.ts';
import type { TokenContext } from './context.ts';
import { MalformedClaim, readActClaim, readMayActClaim } from './delegation-claims.ts';

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
/** jose checks iat only against a maximum age; a token issued further ahead than this came from a badly skewed clock or was forged. */
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
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        value,
        async (header) => {
          const key = header.kid ? await this.#ctx.keys.verificationKey(header.kid) : undefined;
          if (!key) throw new TokenRejected('is signed with a key this server does not know');
          return key;
        },
        {
          issuer: this.#ctx.issuer(),
          audience: this.#ctx.issuer(),
          typ: 'at+jwt',
          algorithms: [SIGNING_ALG],
          requiredClaims: ['sub', 'exp', 'iat', 'oid'],
          currentDate: new Date(now),
          clockTolerance: CLOCK_TOLERANCE_S,
        },
      ));
    } catch (error) {
      throw error instanceof TokenRejected ? error : new TokenRejected(describeJoseError(error));
    }
    if (payload.iat! > Math.floor(now / 1000) + MAX_IAT_SKEW_S) {
      throw new TokenRejected(`was issued in the future ("iat" is more than ${MAX_IAT_SKEW_S} seconds ahead)`);
    }
    if (typeof payload.oid !== 'string') throw new TokenRejected('has no organisation (oid)');
    // jose checks that sub is present, not what it is.
    if (typeof payload.sub !== 'string') throw new TokenRejected('has a malformed claim: "sub" must be a string');
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
      orgId: payload.oid,
      subject: payload.sub,
      clientId: typeof payload.client_id === 'string' ? payload.client_id : undefined,
      scope: typeof payload.scope === 'string' ? payload.scope : '',
      act,
      mayAct,
      issuedAt: payload.iat! * 1000,
      expiresAt: payload.exp! * 1000,
      claims: payload,
    };
  }

  async opaque(value: string): Promise<OwnToken> {
    const record = value.length <= 128 ? await this.#ctx.store.findToken(hashSecret(value)) : undefined;
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
      record,
    };
  }
}

function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf' && error.reason === 'check_failed') return 'is not valid yet ("nbf" is in the future)';
    if (error.claim === 'aud') return `is not meant for this service ("aud" must be its issuer URL)`;
    // claim is one of jose's own names (iss, aud, typ, iat, ...), never caller text.
    return `failed the "${error.claim}" check (${error.reason})`;
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'uses a signing algorithm this server does not accept';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'has an invalid signature';
  if (error instanceof joseErrors.JWTInvalid || error instanceof joseErrors.JWSInvalid) return 'is not a well-formed JWT';
  return 'could not be verified';
}
