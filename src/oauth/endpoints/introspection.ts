import type { FastifyInstance } from 'fastify';
import { assertionsOf, authenticateClient } from '../client-auth.ts';
import { oauthError } from '../errors.ts';
import { OAuthParams } from '../form.ts';
import type { OAuthDeps } from '../grants/grant.ts';
import { introspectorAuthentication, mayIntrospect } from '../introspector.ts';
import { isOfCurrentGeneration } from '../tokens/person-generation.ts';
import { type OwnToken, TokenRejected } from '../tokens/reader.ts';
import { tokenShape } from '../tokens/token-types.ts';

function formParams(body: unknown): OAuthParams {
  if (typeof body !== 'string') throw oauthError('invalid_request', 'the request body must be application/x-www-form-urlencoded');
  return new OAuthParams(body);
}

/** A current token of this server and of the given organisation, or undefined. */
async function readAny(deps: OAuthDeps, value: string, orgId: string): Promise<OwnToken | undefined> {
  const shape = tokenShape(value);
  try {
    const token = shape === 'jwt' ? await deps.reader.jwt(value) : shape === 'opaque' ? await deps.reader.opaque(value) : undefined;
    if (token?.orgId !== orgId) return undefined;
    // A JWT cannot be revoked, but one whose person or client was deleted is no longer reported
    // active; nor is a token of the person's earlier generation, opaque ones included.
    if (token.subject.startsWith('per_')) {
      const person = await deps.store.getPerson(orgId, token.subject);
      if (!person || !isOfCurrentGeneration(token, person)) return undefined;
    }
    if (token.format === 'jwt' && token.subject.startsWith('cli_') && !(await deps.store.getClient(orgId, token.subject))) return undefined;
    return token;
  } catch (error) {
    if (error instanceof TokenRejected) return undefined;
    throw error;
  }
}

/**
 * RFC 7662 introspection, for clients (their own tokens) and admin API keys (their
 * organisation's), and RFC 7009 revocation, for clients of the token's organisation.
 */
export function registerIntrospectionAndRevocation(app: FastifyInstance, deps: OAuthDeps): void {
  const authenticateIntrospector = introspectorAuthentication(deps.store, assertionsOf(deps));

  app.post('/oauth2/tokens/introspect', { schema: { tags: ['oauth2'], summary: 'RFC 7662 token introspection' } }, async (request, reply) => {
    const params = formParams(request.body);
    const introspector = await authenticateIntrospector(app, request, reply, params);
    const token = await readAny(deps, params.require('token'), introspector.orgId);
    reply.header('cache-control', 'no-store');
    if (!token || !mayIntrospect(introspector, token)) return { active: false };
    const audience = token.record ? [...token.record.audience, ...token.record.resource] : [deps.issuer.issuer];
    return {
      active: true,
      iss: deps.issuer.issuer,
      sub: token.subject,
      oid: token.orgId,
      ...(token.clientId ? { client_id: token.clientId } : {}),
      ...(token.scope ? { scope: token.scope } : {}),
      ...(audience.length > 0 ? { aud: audience } : {}),
      ...(token.act ? { act: token.act } : {}),
      exp: Math.floor(token.expiresAt / 1000),
      iat: Math.floor(token.issuedAt / 1000),
      token_type: 'Bearer',
    };
  });

  app.post(
    '/oauth2/tokens/revoke',
    { schema: { tags: ['oauth2'], summary: 'RFC 7009 token revocation (cascades to exchanged tokens)' } },
    async (request, reply) => {
      const params = formParams(request.body);
      const authenticated = await authenticateClient(deps.store, request.headers.authorization, params, assertionsOf(deps));
      if (!authenticated) throw oauthError('invalid_client', 'this endpoint requires client authentication');
      const { client } = authenticated;
      const value = params.require('token');
      const shape = tokenShape(value);
      if (shape === 'jwt') throw oauthError('unsupported_token_type', 'JWT access tokens cannot be revoked; they expire (keep their lifetime short)');
      const token = shape === 'opaque' ? await readAny(deps, value, client.orgId) : undefined;
      // RFC 7009 §2.2: an unknown, expired or foreign token is answered 200 all the same.
      if (token?.record) {
        if (token.clientId !== undefined && token.clientId !== client.id) throw oauthError('unauthorized_client', 'the token was issued to another client');
        await deps.store.revokeTokenTree(token.record.hash, deps.now());
      }
      return reply.code(200).header('cache-control', 'no-store').send();
    },
  );
}
