import { randomUUID } from 'node:crypto';
import { type CryptoKey, exportJWK, generateKeyPair, SignJWT } from 'jose';

/** A private_key_jwt client's signing key and the JWK it registers (ES256, the first algorithm clients reach for). */
export async function clientKey(): Promise<{ privateKey: CryptoKey; jwk: Record<string, unknown> }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256' } };
}

/**
 * `count` assertions of `clientId` for `issuer`, each with its own jti (the service spends a jti
 * once), signed before the row runs: the row measures the service verifying them, not the load
 * generator signing.
 */
export async function signAssertions(privateKey: CryptoKey, clientId: string, issuer: string, count: number): Promise<string[]> {
  const now = Math.floor(Date.now() / 1000);
  const one = () =>
    new SignJWT({ jti: randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: 'bench' })
      .setIssuer(clientId)
      .setSubject(clientId)
      .setAudience(issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + 290)
      .sign(privateKey);
  const assertions: string[] = [];
  while (assertions.length < count) assertions.push(...(await Promise.all(Array.from({ length: Math.min(1_000, count - assertions.length) }, one))));
  return assertions;
}
