import type { FastifyInstance } from 'fastify';
import { clientAuthMethods } from '../../store/clients/store.ts';
import { ASSERTION_ALGORITHMS } from '../client-assertion.ts';
import type { KeyRing } from '../keys/key-ring.ts';
import { SIGNING_ALG } from '../keys/key-ring.ts';
import { supportedGrantTypes } from './token-endpoint.ts';

const AUTH_METHODS = [...clientAuthMethods];

/** RFC 8414 authorization server metadata and the JWKS of every key a current token may be signed with. */
export function registerMetadata(app: FastifyInstance, keys: KeyRing, issuer: () => string): void {
  app.get('/.well-known/oauth-authorization-server', { schema: { tags: ['oauth2'], summary: 'RFC 8414 metadata' } }, async () => {
    const base = issuer();
    return {
      issuer: base,
      token_endpoint: `${base}/oauth2/tokens`,
      introspection_endpoint: `${base}/oauth2/tokens/introspect`,
      revocation_endpoint: `${base}/oauth2/tokens/revoke`,
      jwks_uri: `${base}/.well-known/jwks.json`,
      grant_types_supported: supportedGrantTypes,
      response_types_supported: [],
      token_endpoint_auth_methods_supported: AUTH_METHODS,
      token_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGORITHMS,
      introspection_endpoint_auth_methods_supported: AUTH_METHODS,
      introspection_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGORITHMS,
      revocation_endpoint_auth_methods_supported: AUTH_METHODS,
      revocation_endpoint_auth_signing_alg_values_supported: ASSERTION_ALGORITHMS,
      // RFC 9068 access tokens are signed with this algorithm.
      access_token_signing_alg_values_supported: [SIGNING_ALG],
    };
  });

  app.get('/.well-known/jwks.json', { schema: { tags: ['oauth2'], summary: 'Public signing keys (JWKS)' } }, async (_request, reply) => {
    reply.header('cache-control', 'public, max-age=300');
    return keys.jwks();
  });
}
