import { importJWK, type JWK } from 'jose';
import { invalidField } from '../errors/api-error.ts';

/** The algorithms each key type makes, of the ones an assertion may use (ASSERTION_ALGORITHMS). */
const ALGORITHMS_OF_KEY: Record<string, readonly string[]> = {
  'EC P-256': ['ES256'],
  'OKP Ed25519': ['EdDSA', 'Ed25519'],
  RSA: ['RS256', 'PS256'],
};
/** The members only a private or symmetric key has: a registration carrying one leaked its key. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
const MIN_RSA_BITS = 2048;
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
    if (key.kty === 'RSA' && Buffer.from(key.n ?? '', 'base64url').length * 8 < MIN_RSA_BITS)
      throw invalidField(`${field}.n`, `must be a modulus of at least ${MIN_RSA_BITS} bits`);
    try {
      await importJWK(key, key.alg ?? allowed[0]);
    } catch {
      throw invalidField(field, 'is not a usable public key (its coordinates or modulus do not make one)');
    }
  }
}
