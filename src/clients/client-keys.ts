import { importJWK, type JWK } from 'jose';
import { invalidField } from '../errors/api-error.ts';

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

function keyType(key: JWK): string {
  return key.kty === 'RSA' ? 'RSA' : `${key.kty} ${key.crv}`;
}

/**
 * A client's `jwks` as registration accepts it (RFC 7591 §2): public signing keys of the
 * assertion algorithms, RSA of at least 2048 bits, each with a distinct `kid` when there are
 * several (an assertion names its key by kid). Refusals name the key's index and the rule.
 */
export async function checkClientKeys(jwks: { keys: JWK[] }): Promise<void> {
  const kids = new Set<string>();
  for (const [index, key] of jwks.keys.entries()) {
    const field = `body.jwks.keys[${index}]`;
    const allowed = ALGORITHMS_OF_KEY[keyType(key)];
    if (!allowed) throw invalidField(`${field}.kty`, 'must be an EC key on P-256, an OKP key on Ed25519 or an RSA key');
    const secret = PRIVATE_MEMBERS.find((member) => member in key);
    if (secret) throw invalidField(`${field}.${secret}`, 'must not be given: register the public key only, and keep the private key with the client');
    if (key.use !== undefined && key.use !== 'sig') throw invalidField(`${field}.use`, 'must be sig when given');
    if (key.alg !== undefined && !allowed.includes(key.alg)) throw invalidField(`${field}.alg`, `must be one of ${allowed.join(', ')} for this key type`);
    if (jwks.keys.length > 1 && typeof key.kid !== 'string') throw invalidField(`${field}.kid`, 'is required when jwks holds more than one key');
    if (typeof key.kid === 'string') {
      if (kids.has(key.kid)) throw invalidField(`${field}.kid`, 'must differ from every other key of jwks');
      kids.add(key.kid);
    }
    if (key.kty === 'RSA') {
      // Types and lengths are the schema's; the bits are counted from the first non-zero octet.
      const modulus = Buffer.from(key.n ?? '', 'base64url');
      const bits = modulus[0] ? (modulus.length - 1) * 8 + modulus[0].toString(2).length : 0;
      if (bits < RSA_BITS.min || bits > RSA_BITS.max)
        throw invalidField(`${field}.n`, `must be a modulus of ${RSA_BITS.min} to ${RSA_BITS.max} bits, without leading zero octets`);
      const exponent = Buffer.from(key.e ?? '', 'base64url');
      if (exponent.length > MAX_RSA_EXPONENT_BYTES || !exponent[0] || !((exponent.at(-1) ?? 0) & 1))
        throw invalidField(`${field}.e`, `must be an odd exponent of at most ${MAX_RSA_EXPONENT_BYTES * 8} bits (AQAB, 65537, is usual)`);
    }
    try {
      await importJWK(key, key.alg ?? allowed[0]);
    } catch {
      throw invalidField(field, 'is not a usable public key (its coordinates or modulus do not make one)');
    }
  }
}
