/**
 * The RFC 9068 / RFC 7519 §4.1 checks of this server's JWT access tokens, after the signature
 * holds (es256-jws.ts). Each failure is a sentence safe to return to the caller, completing
 * "The subject_token …".
 */

export interface ClaimRules {
  issuer: string;
  /** Unix seconds. */
  now: number;
  /** Seconds of slack on exp and nbf: replicas' clocks differ by a little. */
  clockTolerance: number;
  /** A token issued further ahead than this came from a badly skewed clock or was forged. */
  maxIatSkew: number;
}

export class ClaimProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClaimProblem';
  }
}

const REQUIRED = ['iss', 'sub', 'aud', 'exp', 'iat', 'oid'] as const;
const NUMERIC_DATES = ['iat', 'nbf', 'exp'] as const;

/** RFC 9068 §4: "at+jwt", with or without the "application/" prefix, in any case. */
function isAccessTokenTyp(typ: unknown): boolean {
  return typeof typ === 'string' && typ.toLowerCase().replace(/^application\//, '') === 'at+jwt';
}

export function checkAccessTokenClaims(header: Record<string, unknown>, claims: Record<string, unknown>, rules: ClaimRules): void {
  if (!isAccessTokenTyp(header.typ)) throw new ClaimProblem('failed the "typ" check (it must be "at+jwt")');
  for (const name of REQUIRED) {
    if (claims[name] === undefined) {
      throw new ClaimProblem(name === 'aud' ? audienceProblem : `failed the "${name}" check (missing)`);
    }
  }
  if (claims.iss !== rules.issuer) throw new ClaimProblem('failed the "iss" check (it must be this server\'s issuer URL)');
  const audience = claims.aud;
  if (!(audience === rules.issuer || (Array.isArray(audience) && audience.includes(rules.issuer)))) throw new ClaimProblem(audienceProblem);
  for (const name of NUMERIC_DATES) {
    const value = claims[name];
    // Number.isFinite is false for anything but a finite number: a numeric string included.
    if (value !== undefined && !Number.isFinite(value)) throw new ClaimProblem(`failed the "${name}" check (must be a number)`);
  }
  // Without nbf a token is valid from its start.
  const { iat, nbf = Number.NEGATIVE_INFINITY, exp } = claims as { iat: number; nbf?: number; exp: number };
  if (nbf > rules.now + rules.clockTolerance) throw new ClaimProblem('is not valid yet ("nbf" is in the future)');
  if (exp <= rules.now - rules.clockTolerance) throw new ClaimProblem('has expired');
  if (iat > rules.now + rules.maxIatSkew) throw new ClaimProblem(`was issued in the future ("iat" is more than ${rules.maxIatSkew} seconds ahead)`);
  if (typeof claims.oid !== 'string') throw new ClaimProblem('has no organisation (oid)');
  if (typeof claims.sub !== 'string') throw new ClaimProblem('has a malformed claim: "sub" must be a string');
}

const audienceProblem = 'is not meant for this service ("aud" must be its issuer URL)';
