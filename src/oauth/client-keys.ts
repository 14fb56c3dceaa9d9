import { importJWK, type JWK } from 'jose';

/** The algorithms each key type makes, of the ones an assertion may use (ASSERTION_ALGORITHMS). */
const ALGORITHMS_OF_KEY: Record<string, readonly string[]> = {
  'EC P-256': ['ES256'],
  'OKP Ed25519': ['EdDSA'],
  RSA: ['RS256', 'PS256'],
};
/** The members only a private or symmetric key has: a registration carrying one leaked its key. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
/**
 * RSA moduli from 2048 bits (NIST's floor) to 4096, and an exponent of at most 32 bits: anyone
 * who knows a client id can send assertions to be verified against its key, and a modulus of
 * 16384 bits or an exponent as long as the modulus makes each check cost milliseconds.
 */
const RSA_BITS = { min: 2048, max: 4096 } as const;
const MAX_RSA_EXPONENT_BYTES = 4;
/** The members a stored public key keeps; anything else a registration sends is dropped. */
export const PUBLIC_MEMBERS = ['kty', 'crv', 'x', 'y', 'n', 'e', 'kid', 'alg', 'use'] as const;
export const MAX_CLIENT_KEYS = 10;
/** Members whose values are short strings when valid (base64url of at most a 4096-bit modulus). */
const STRING_MEMBERS: Partial<Record<(typeof PUBLIC_MEMBERS)[number], number>> = { kty: 16, crv: 16, x: 64, y: 64, n: 700, e: 12, kid: 200, alg: 16, use: 8 };

/** Why one key cannot be a client's: the member at fault (none for the key as a whole) and the rule. */
export interface KeyProblem {
  member?: string;
  rule: string;
}

function keyType(key: JWK): string {
  return key.kty === 'RSA' ? 'RSA' : `${key.kty} ${key.crv}`;
}

/**
 * The rules of design §4 for one public signing key: a type and curve an assertion algorithm
 * uses, no private member, `use` sig and an `alg` of its type when given, RSA of 2048 to 4096
 * bits with a small odd exponent, and coordinates that make a key. `kid` is required when the
 * set holds several keys (an assertion names its key by kid).
 */
export async function keyProblem(candidate: unknown, keysInSet: number): Promise<KeyProblem | undefined> {
  if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate)) return { rule: 'must be a JWK (a JSON object)' };
  for (const [member, max] of Object.entries(STRING_MEMBERS)) {
    const value = (candidate as Record<string, unknown>)[member];
    if (value !== undefined && (typeof value !== 'string' || value.length > max!)) return { member, rule: `must be a string of at most ${max} characters` };
  }
  const key = candidate as JWK;
  const allowed = ALGORITHMS_OF_KEY[keyType(key)];
  if (!allowed) return { member: 'kty', rule: 'must be an EC key on P-256, an OKP key on Ed25519 or an RSA key' };
  const secret = privateMemberOf(key);
  if (secret) return { member: secret, rule: 'must not be given: register the public key only, and keep the private key with the client' };
  if (key.use !== undefined && key.use !== 'sig') return { member: 'use', rule: 'must be sig when given' };
  if (key.alg !== undefined && !allowed.includes(key.alg)) return { member: 'alg', rule: `must be one of ${allowed.join(', ')} for this key type` };
  if (keysInSet > 1 && typeof key.kid !== 'string') return { member: 'kid', rule: 'is required when the key set holds more than one key' };
  if (key.kty === 'RSA') {
    // The bits are counted from the first non-zero octet.
    const modulus = Buffer.from(key.n ?? '', 'base64url');
    const bits = modulus[0] ? (modulus.length - 1) * 8 + modulus[0].toString(2).length : 0;
    if (bits < RSA_BITS.min || bits > RSA_BITS.max)
      return { member: 'n', rule: `must be a modulus of ${RSA_BITS.min} to ${RSA_BITS.max} bits, without leading zero octets` };
    const exponent = Buffer.from(key.e ?? '', 'base64url');
    if (exponent.length > MAX_RSA_EXPONENT_BYTES || !exponent[0] || !((exponent.at(-1) ?? 0) & 1))
      return { member: 'e', rule: `must be an odd exponent of at most ${MAX_RSA_EXPONENT_BYTES * 8} bits (AQAB, 65537, is usual)` };
  }
  try {
    await importJWK(key, key.alg ?? allowed[0]);
  } catch {
    return { rule: 'is not a usable public key (its coordinates or modulus do not make one)' };
  }
  return undefined;
}

/** The private or symmetric member a would-be public key carries, if any: such a key was leaked by being sent. */
export function privateMemberOf(key: object): string | undefined {
  return PRIVATE_MEMBERS.find((member) => member in key);
}

/** The public members of a key that passed keyProblem: only what verifying needs is kept. */
export function publicPart(key: JWK): JWK {
  return Object.fromEntries(PUBLIC_MEMBERS.flatMap((member) => (member in key ? [[member, key[member]]] : []))) as JWK;
}

/** A kid two keys of a set share: an assertion naming it could mean either. */
export function repeatedKid(keys: readonly JWK[]): { index: number } | undefined {
  const kids = new Set<string>();
  for (const [index, key] of keys.entries()) {
    if (typeof key.kid !== 'string') continue;
    if (kids.has(key.kid)) return { index };
    kids.add(key.kid);
  }
  return undefined;
}

/**
 * The usable keys of a set fetched from a client's jwks_uri: a published set may also hold
 * encryption keys or keys of other types, which are skipped rather than failing the set; keys
 * sharing a kid are all dropped (either could be meant). At most MAX_CLIENT_KEYS are kept.
 */
export async function usableKeys(keys: readonly unknown[]): Promise<JWK[]> {
  const usable: JWK[] = [];
  for (const key of keys.slice(0, 4 * MAX_CLIENT_KEYS)) {
    if (!(await keyProblem(key, keys.length))) usable.push(publicPart(key as JWK));
  }
  const counts = new Map<string, number>();
  for (const key of usable) if (key.kid !== undefined) counts.set(key.kid, (counts.get(key.kid) ?? 0) + 1);
  return usable.filter((key) => key.kid === undefined || counts.get(key.kid) === 1).slice(0, MAX_CLIENT_KEYS);
}
