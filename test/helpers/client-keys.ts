import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { renameSync, writeFileSync } from 'node:fs';
import type { JWK } from 'jose';
import { EXCHANGE } from './oauth.ts';
import type { TestOrg, TestService } from './service.ts';

/** A client's key pair as an operator holds it: the private key as a PEM PKCS#8 file's text, the public one to register. */
export interface ClientKeyPair {
  pem: string;
  publicKey: KeyObject;
  /** The public key as a JWK, with `kid` when one was given. */
  jwk: JWK;
}

export function newClientKey(type: 'ec' | 'ed25519' | 'rsa', kid?: string): ClientKeyPair {
  const { privateKey, publicKey } =
    type === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : type === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' }) as JWK;
  return { pem: String(privateKey.export({ type: 'pkcs8', format: 'pem' })), publicKey, jwk: kid === undefined ? jwk : { ...jwk, kid } };
}

/** A private_key_jwt client of the organisation with these public keys, allowed both grants; its id. */
export async function registerKeyedClient(t: TestService, org: TestOrg, keys: JWK[], body: Record<string, unknown> = {}): Promise<string> {
  const response = await t.call('POST', '/oauth2/clients', {
    as: org,
    body: {
      client_name: 'keyed gateway',
      grant_types: ['client_credentials', EXCHANGE],
      scopes: ['orders:read', 'orders:write'],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys },
      ...body,
    },
  });
  if (response.status !== 201) throw new Error(`keyed client registration failed: ${JSON.stringify(response.body)}`);
  return response.body.result.client_id;
}

/** Replaces the file as a careful operator (or a secret mount) does: written aside, then renamed over it. */
export function replaceFile(path: string, text: string): void {
  writeFileSync(`${path}.new`, text);
  renameSync(`${path}.new`, path);
}
