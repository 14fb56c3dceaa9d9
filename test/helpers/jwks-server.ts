import { createServer, type Server } from 'node:http';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export interface JwksServer {
  url: string;
  /** Signs a JWT-SVID with this server's key; claims and header may be overridden. */
  svid(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  publicJwk: JWK;
  close(): Promise<void>;
}

/** A SPIFFE bundle endpoint (JWKS with use: jwt-svid) on 127.0.0.1, port 0; `body` overrides what it serves. */
export async function startJwksServer(body?: string): Promise<JwksServer> {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const publicJwk = { ...(await exportJWK(publicKey)), kid: 'svid-key-1', use: 'jwt-svid', alg: 'ES256' };
  const server: Server = createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(body ?? JSON.stringify({ keys: [publicJwk], spiffe_refresh_hint: 300 }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/bundle`,
    publicJwk,
    svid: (claims, header = {}) => signSvid(privateKey, claims, { alg: 'ES256', kid: 'svid-key-1', typ: 'JWT', ...header }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function signSvid(key: CryptoKey, claims: Record<string, unknown>, header: Record<string, unknown>): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iat: now, exp: now + 300, ...claims }).setProtectedHeader(header as { alg: string }).sign(key);
}
