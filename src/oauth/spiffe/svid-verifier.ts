import {
  type CryptoKey,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  importJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
  type ProtectedHeaderParameters,
} from 'jose';
import { DEFAULT_COOLDOWN_MS, JwksCache, type JwksFetchError } from './jwks-cache.ts';
import { parseWorkloadSpiffeId } from './spiffe-id.ts';
import { SvidError } from './svid-error.ts';

/** JWT-SVID §2.1: RFC 7518 §3.3–3.5 only, so never `none` nor a shared-secret HMAC. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];
/** JWT-SVID §2: any other header, registered or private, MUST NOT be present (no crit, jku, jwk, b64). */
const HEADERS = new Set(['alg', 'kid', 'typ']);
const MAX_TOKEN_BYTES = 16 * 1024;
const CLOCK_TOLERANCE_S = 30;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
const UNAVAILABLE = "the JWT-SVID's trust domain key set is unavailable; try again later";

/** Which trust domains an actor token may come from, and which workloads may act. */
export interface SvidTrust {
  /** Trust domain name → URL of its SPIFFE bundle in JWKS form. */
  svid_jwks_urls: Record<string, string>;
  /** SPIFFE IDs allowed to act, compared exactly. */
  allowed_spiffe_ids: string[];
}

export interface VerifiedSvid {
  spiffeId: string;
  /** The `exp` claim: seconds since the epoch. */
  expiresAt: number;
  claims: JWTPayload;
}

export interface SvidVerifierOptions {
  fetchTimeoutMs?: number;
  cooldownMs?: number;
  now?: () => number;
  /** Lets JWKS URLs be plain http on 127.0.0.1, localhost or [::1] (tests, local sidecars). */
  allowHttpLoopback?: boolean;
  /** Told about every failed JWKS fetch, including those a still usable older set hides. */
  onError?: (error: JwksFetchError) => void;
}

/**
 * Verifies JWT-SVIDs presented as RFC 8693 actor tokens. Everything that can be refused from
 * the token alone is refused before a key set is fetched, so garbage costs no network. The
 * allow-list is consulted only after the signature and claims hold: an unsigned token learns
 * nothing about which workloads are allowed.
 */
export class SvidVerifier {
  readonly #jwks: JwksCache;
  readonly #now: () => number;
  readonly #allowHttpLoopback: boolean;
  /** A failed key set is fetched again only after the cache's cooldown: asking sooner gets the same failure. */
  readonly #retryAfterSeconds: number;
  /** Imported keys, per JWK object of the current set (a refetch drops them with the set). */
  readonly #imported = new WeakMap<JWK, Map<string, CryptoKey>>();

  constructor(options: SvidVerifierOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#allowHttpLoopback = options.allowHttpLoopback ?? false;
    this.#retryAfterSeconds = Math.ceil((options.cooldownMs ?? DEFAULT_COOLDOWN_MS) / 1000);
    this.#jwks = new JwksCache({
      fetchTimeoutMs: options.fetchTimeoutMs,
      allowLoopback: this.#allowHttpLoopback,
      cooldownMs: options.cooldownMs,
      now: this.#now,
      onError: options.onError,
    });
  }

  /** Closes the kept-alive connections to bundle endpoints. */
  close(): Promise<void> {
    return this.#jwks.close();
  }

  /** An actor token: a verified SVID (verifyIdentity) whose SPIFFE ID the organisation allows to act. */
  async verify(token: string, trust: SvidTrust, audience: string): Promise<VerifiedSvid> {
    const verified = await this.verifyIdentity(token, trust, audience);
    if (!trust.allowed_spiffe_ids.includes(verified.spiffeId)) {
      throw new SvidError('SVID_ID_NOT_ALLOWED', `${verified.spiffeId} is not allowed to act`);
    }
    return verified;
  }

  /**
   * The JWT-SVID standard's checks: its size, header and SPIFFE ID, a trust domain the
   * organisation trusts, the signature by that domain's key, `exp`, `nbf`, `iat` and an `aud`
   * that contains `audience`. Which workloads may do what is the caller's rule.
   */
  async verifyIdentity(token: string, trust: Pick<SvidTrust, 'svid_jwks_urls'>, audience: string): Promise<VerifiedSvid> {
    if (typeof token !== 'string') throw new SvidError('SVID_MALFORMED', 'the JWT-SVID must be a string');
    if (token.length > MAX_TOKEN_BYTES || Buffer.byteLength(token) > MAX_TOKEN_BYTES) {
      throw new SvidError('SVID_TOO_LARGE', 'the JWT-SVID is larger than 16 KiB');
    }
    const { header, claims } = decodeUnverified(token);
    const { alg, kid } = checkHeader(header);
    const id = parseWorkloadSpiffeId(claims.sub);
    if (!id) {
      throw new SvidError('SVID_SUB_INVALID', 'the JWT-SVID\'s "sub" must be the SPIFFE ID of a workload (spiffe://trust-domain/path)');
    }
    // hasOwn: a trust domain named "constructor" must not find Object.prototype's.
    const url = Object.hasOwn(trust.svid_jwks_urls, id.trustDomain) ? trust.svid_jwks_urls[id.trustDomain] : undefined;
    if (typeof url !== 'string') {
      throw new SvidError('SVID_TRUST_DOMAIN_UNKNOWN', `the JWT-SVID's trust domain ${id.trustDomain} is not trusted`);
    }
    const payload = await this.#verifySignatureAndClaims(token, await this.#key(url, kid, alg), audience);
    return { spiffeId: claims.sub as string, expiresAt: payload.exp as number, claims: payload };
  }

  async #key(url: string, kid: string, alg: string): Promise<CryptoKey> {
    if (!this.#allowedUrl(url)) {
      throw new SvidError('SVID_JWKS_UNAVAILABLE', UNAVAILABLE, {
        cause: new Error(`JWKS URL ${url} is not https`),
        retryAfterSeconds: this.#retryAfterSeconds,
      });
    }
    let jwk: JWK | undefined;
    try {
      jwk = await this.#jwks.getKey(url, kid);
    } catch (error) {
      throw new SvidError('SVID_JWKS_UNAVAILABLE', UNAVAILABLE, { cause: error, retryAfterSeconds: this.#retryAfterSeconds });
    }
    if (!jwk) throw new SvidError('SVID_KEY_UNKNOWN', "the JWT-SVID's kid is not in its trust domain's key set");
    // A key published for one algorithm must not verify under another.
    if (jwk.alg !== undefined && jwk.alg !== alg) throw new SvidError('SVID_SIGNATURE_INVALID', "the JWT-SVID's alg does not fit its key");
    let byAlg = this.#imported.get(jwk);
    if (!byAlg) this.#imported.set(jwk, (byAlg = new Map()));
    let key = byAlg.get(alg);
    if (!key) {
      try {
        key = (await importJWK(jwk, alg)) as CryptoKey;
      } catch {
        throw new SvidError('SVID_SIGNATURE_INVALID', "the JWT-SVID's alg does not fit its key");
      }
      byAlg.set(alg, key);
    }
    return key;
  }

  async #verifySignatureAndClaims(token: string, key: CryptoKey, audience: string): Promise<JWTPayload> {
    const now = this.#now();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, key, {
        algorithms: ALGORITHMS,
        audience,
        requiredClaims: ['exp'],
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(now),
      }));
    } catch (error) {
      throw fromJose(error);
    }
    // jose checks iat only against a maximum age; one from the future means a skewed or lying issuer.
    if (typeof payload.iat === 'number' && payload.iat > Math.floor(now / 1000) + CLOCK_TOLERANCE_S) {
      throw new SvidError('SVID_NOT_YET_VALID', 'the JWT-SVID was issued in the future ("iat")');
    }
    return payload;
  }

  #allowedUrl(url: string): boolean {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    if (parsed.protocol === 'https:') return true;
    return this.#allowHttpLoopback && parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname);
  }
}

function decodeUnverified(token: string): { header: ProtectedHeaderParameters; claims: JWTPayload } {
  try {
    return { header: decodeProtectedHeader(token), claims: decodeJwt(token) };
  } catch {
    throw new SvidError('SVID_MALFORMED', 'the JWT-SVID is not a JWS compact serialization with a JSON object payload');
  }
}

function checkHeader(header: ProtectedHeaderParameters): { alg: string; kid: string } {
  const { alg, typ, kid } = header;
  if (typeof alg !== 'string' || !ALGORITHMS.includes(alg)) {
    throw new SvidError('SVID_ALG_NOT_ALLOWED', `the JWT-SVID's alg must be one of ${ALGORITHMS.join(', ')}`);
  }
  if (typ !== undefined && typ !== 'JWT' && typ !== 'JOSE') throw new SvidError('SVID_TYP_INVALID', "the JWT-SVID's typ must be JWT or JOSE");
  // The standard makes kid optional, but without one every key of the set would have to be tried.
  if (typeof kid !== 'string' || kid === '') throw new SvidError('SVID_KID_MISSING', 'the JWT-SVID has no kid');
  if (Object.keys(header).some((name) => !HEADERS.has(name))) {
    throw new SvidError('SVID_MALFORMED', 'the JWT-SVID header may hold only alg, kid and typ');
  }
  return { alg, kid };
}

function fromJose(error: unknown): SvidError {
  if (error instanceof errors.JWTExpired) return new SvidError('SVID_EXPIRED', 'the JWT-SVID has expired');
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'exp' && error.reason === 'missing') return new SvidError('SVID_EXP_MISSING', 'the JWT-SVID has no "exp"');
    if (error.claim === 'aud') return new SvidError('SVID_AUD_MISMATCH', 'the JWT-SVID\'s "aud" does not name this service');
    if (error.claim === 'nbf' && error.reason === 'check_failed') return new SvidError('SVID_NOT_YET_VALID', 'the JWT-SVID is not valid yet ("nbf")');
    // claim is one of jose's own names (exp, nbf, iat), never caller text.
    return new SvidError('SVID_MALFORMED', `the JWT-SVID's "${error.claim}" is not a NumericDate`);
  }
  if (error instanceof errors.JWTInvalid || error instanceof errors.JWSInvalid) {
    return new SvidError('SVID_MALFORMED', 'the JWT-SVID is not a well-formed JWT');
  }
  // Bad signatures, and keys jose will not verify with (e.g. RSA below 2048 bits).
  return new SvidError('SVID_SIGNATURE_INVALID', "the JWT-SVID's signature does not verify with its trust domain's key");
}
