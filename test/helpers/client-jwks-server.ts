import { createServer, type Server } from 'node:http';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export interface ClientKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

/** A key a client signs its assertions with, and its public JWK as the client publishes it. */
export async function clientKey(kid: string): Promise<ClientKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** An RFC 7523 client assertion for `clientId`, signed with `key`, valid from `nowMs` for two minutes. */
export function signAssertion(key: ClientKey, clientId: string, audience: string, nowMs: number, claims: Record<string, unknown> = {}): Promise<string> {
  const now = Math.floor(nowMs / 1000);
  return new SignJWT({ iss: clientId, sub: clientId, aud: audience, jti: crypto.randomUUID(), iat: now, exp: now + 120, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid })
    .sign(key.privateKey);
}

/** A client's jwks_uri on 127.0.0.1, port 0: what it publishes can change, fail, and its fetches are counted. */
export interface ClientJwksServer {
  url: string;
  /** The keys served; replace them to rotate. */
  keys: JWK[];
  /** Answered instead of the key set while set (a status code). */
  failWith: number | undefined;
  fetches: number;
  close(): Promise<void>;
}

export async function startClientJwksServer(keys: JWK[]): Promise<ClientJwksServer> {
  const state: Omit<ClientJwksServer, 'url' | 'close'> = { keys, failWith: undefined, fetches: 0 };
  const server: Server = createServer((_request, response) => {
    state.fetches++;
    if (state.failWith !== undefined) {
      response.statusCode = state.failWith;
      response.end();
      return;
    }
    response.setHeader('content-type', 'application/jwk-set+json');
    response.end(JSON.stringify({ keys: state.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}/jwks.json`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // The service keeps its connection alive: close would wait for it to time out.
        server.closeAllConnections();
      }),
  });
}
