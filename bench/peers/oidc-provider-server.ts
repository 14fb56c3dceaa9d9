import { generateKeyPairSync } from 'node:crypto';
import { type JWK, Provider } from 'oidc-provider';

/**
 * A peer for the token benchmark: node-oidc-provider v9 issuing opaque client-credentials
 * access tokens from its default in-memory adapter, served by its own Koa listener.
 * Run as a process of its own; prints `listening <url>` on stdout once ready.
 *
 * Accepts `POST /token`, `content-type: application/x-www-form-urlencoded`,
 * `authorization: Basic base64(bench:bench-secret)`, body `grant_type=client_credentials&scope=api%3Aread`.
 */

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('PORT must name the port to listen on\n');
  process.exit(2);
}
const issuer = `http://127.0.0.1:${port}`;

// Our own signing key, so the provider does not fall back to (and warn about) its development keys.
// Client-credentials tokens are opaque and never signed; the key only satisfies the keystore.
const signingKey = {
  ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
  alg: 'RS256',
  use: 'sig',
  kid: 'bench',
} as JWK;

// The default in-memory adapter always announces itself with a console warning when the provider
// is constructed; that one line is dropped so the peer stays quiet. Anything else still gets through.
const warn = console.warn;
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && args[0].includes('development-only in-memory adapter')) return;
  warn(...args);
};
const provider = new Provider(issuer, {
  clients: [
    {
      client_id: 'bench',
      client_secret: 'bench-secret',
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
      redirect_uris: [],
      response_types: [],
      // The client's allow-list of the static scopes below that it may request.
      scope: 'api:read',
    },
  ],
  // Static scopes the server knows; a client may only be registered with scopes listed here.
  scopes: ['api:read'],
  features: {
    clientCredentials: { enabled: true },
    devInteractions: { enabled: false },
  },
  jwks: { keys: [signingKey] },
  // Set explicitly (the default's value) so the default helper does not print a notice on first use.
  ttl: { ClientCredentials: 10 * 60 },
});
console.warn = warn;

const server = provider.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening ${issuer}\n`);
});

process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
