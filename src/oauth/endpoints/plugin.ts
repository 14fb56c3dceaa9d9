import type { FastifyPluginAsync } from 'fastify';
import { oauthError } from '../errors.ts';
import type { OAuthDeps } from '../grants/grant.ts';
import type { KeyRing } from '../keys/key-ring.ts';
import { registerIntrospectionAndRevocation } from './introspection.ts';
import { registerMetadata } from './metadata.ts';
import { registerTokenEndpoint, sendOAuthError } from './token-endpoint.ts';

const FORM_LIMIT = 32 * 1024;

/**
 * The OAuth endpoints speak RFC 6749, not the API envelope: form-encoded requests, JSON
 * responses, `{ error, error_description }` errors. This scope has its own body parser and
 * error handler so that nothing of the JSON API leaks in.
 */
export function oauthEndpoints(deps: OAuthDeps): FastifyPluginAsync {
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, body, done) => done(null, body));
    app.addContentTypeParser('*', (_request, _payload, done) =>
      done(oauthError('invalid_request', 'the request body must be application/x-www-form-urlencoded'), undefined),
    );
    app.setErrorHandler((error, request, reply) => {
      const code = (error as { code?: string }).code;
      if (code === 'FST_ERR_CTP_BODY_TOO_LARGE')
        return sendOAuthError(oauthError('invalid_request', `the request body is larger than ${FORM_LIMIT} bytes`), request, reply);
      if (code?.startsWith('FST_ERR_CTP'))
        return sendOAuthError(oauthError('invalid_request', 'the request body must be application/x-www-form-urlencoded'), request, reply);
      sendOAuthError(error, request, reply);
    });
    registerTokenEndpoint(app, deps);
    registerIntrospectionAndRevocation(app, deps);
  };
}

/**
 * The token service as the app registers it: the RFC 6749 scope above, and beside it, in the
 * service's own scope (GET only, answered in JSON), the RFC 8414 metadata and the JWKS.
 */
export function oauthService(deps: OAuthDeps, published: { keys: KeyRing; issuer: () => string }): FastifyPluginAsync {
  return async (app) => {
    await app.register(oauthEndpoints(deps));
    registerMetadata(app, published.keys, published.issuer);
  };
}
