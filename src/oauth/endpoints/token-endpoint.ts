import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { recordEvent } from '../../store/audit/record-event.ts';
import { StorageUnavailableError } from '../../store/store.ts';
import type { OAuthClient } from '../../store/types.ts';
import { ATTRIBUTE, inSpan, inSpanSync } from '../../telemetry/spans.ts';
import { assertionsOf, authenticateClient } from '../client-auth.ts';
import { OAuthError, oauthError, toOAuthErrorResponse } from '../errors.ts';
import { OAuthParams } from '../form.ts';
import { clientCredentials } from '../grants/client-credentials.ts';
import type { AuditNotes, Grant, OAuthDeps } from '../grants/grant.ts';
import { tokenExchange } from '../grants/token-exchange.ts';
import { JWT_SPIFFE_ASSERTION } from '../spiffe-client-auth.ts';

const grants: ReadonlyMap<string, Grant> = new Map([clientCredentials, tokenExchange].map((g) => [g.type, g]));
export const supportedGrantTypes = [...grants.keys()];

/** Step 1: form-encoded parameters, each at most once (RFC 6749 §3.2). */
function parse(request: FastifyRequest): OAuthParams {
  if (typeof request.body !== 'string') throw oauthError('invalid_request', 'the request body must be application/x-www-form-urlencoded');
  return new OAuthParams(request.body);
}

/** Step 3: the grant exists and this client may use it. */
function checkGrantAllowed(params: OAuthParams, client: OAuthClient | undefined): Grant {
  const type = params.require('grant_type');
  const grant = grants.get(type);
  if (!grant)
    throw oauthError('unsupported_grant_type', `grant_type ${JSON.stringify(type.slice(0, 100))} is not supported; use ${supportedGrantTypes.join(' or ')}`);
  if (!client && grant.requiresClient) throw oauthError('invalid_client', `grant_type ${type} requires client authentication`);
  if (client && !(client.grantTypes as readonly string[]).includes(type))
    throw oauthError('unauthorized_client', `the client is not allowed grant_type ${type}`);
  return grant;
}

export function sendOAuthError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const response = toOAuthErrorResponse(error);
  if (response.status === 500) request.log.error({ err: error }, 'token request failed');
  reply.code(response.status).headers(response.headers).send(response.body);
}

/** POST /oauth2/tokens: parse → authenticate client → check grant allowed → grant handler; audited either way. */
export function registerTokenEndpoint(app: FastifyInstance, deps: OAuthDeps): void {
  app.post(
    '/oauth2/tokens',
    { schema: { tags: ['oauth2'], summary: 'RFC 6749 token endpoint: client_credentials and RFC 8693 token exchange' } },
    async (request, reply) => {
      const audit: AuditNotes = {};
      let auditType = 'token.request';
      let client: { id: string; orgId: string } | undefined;
      let method: ClientAttemptMethod = 'client_secret';
      try {
        const params = inSpanSync('token: parse', {}, () => parse(request));
        method = attemptMethod(params);
        auditType = grants.get(params.get('grant_type') ?? '')?.auditType ?? auditType;
        const authenticated = await inSpan('token: authenticate client', {}, () =>
          authenticateClient(deps.store, request.headers.authorization, params, assertionsOf(deps)),
        );
        client = authenticated?.client;
        audit.orgId = client?.orgId;
        const grant = inSpanSync('token: check grant allowed', {}, () => checkGrantAllowed(params, authenticated?.client));
        const response = await inSpan(`token: ${grant.auditType}`, { [ATTRIBUTE.grant]: grant.type }, () =>
          grant.handle({ params, client: authenticated?.client, clientConfig: authenticated?.config, deps, audit }),
        );
        await record(deps, auditType, client, audit, undefined);
        return reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' }).send(response);
      } catch (error) {
        // A refused authentication of a registered client (wrong credentials, or its keys out of
        // reach) is audited in that client's organisation.
        if (error instanceof OAuthError && error.attemptedClient) {
          client = error.attemptedClient;
          audit.orgId = client.orgId;
        }
        // Without a known organisation (unknown client, clientless request refused before its
        // subject was read) there is nowhere to file the event; the access log keeps the request.
        // With the database unreachable, the audit write would only fail the same way, later.
        if (audit.orgId && !(error instanceof StorageUnavailableError) && (await worthAuditing(deps, error, client, method))) {
          await record(deps, auditType, client, audit, error).catch((auditError: unknown) => request.log.error({ err: auditError }, 'audit write failed'));
        }
        throw error;
      }
    },
  );
}

/** Wrong secrets for one client audited per minute; past that, counted only (a client id is no secret). */
export const CLIENT_AUTH_FAILURES_AUDITED = Object.freeze({ windowMs: 60_000, limit: 10 });

/** How a refused client tried to authenticate, as the unaudited-attempts metric names it. */
type ClientAttemptMethod = 'client_secret' | 'private_key_jwt' | 'spiffe_jwt';

function attemptMethod(params: OAuthParams): ClientAttemptMethod {
  if (!params.has('client_assertion_type')) return 'client_secret';
  return params.get('client_assertion_type') === JWT_SPIFFE_ASSERTION ? 'spiffe_jwt' : 'private_key_jwt';
}

/**
 * Wrong credentials for a registered client are a signal worth the audit log, but anyone who
 * knows a client id can send them by the thousand: the first few a minute are recorded, the rest
 * only counted in tessera_authn_attempts_unaudited_total{method} (client_secret, private_key_jwt or
 * spiffe_jwt). Every other refusal came from an authenticated client, and is recorded.
 */
async function worthAuditing(
  deps: OAuthDeps,
  error: unknown,
  client: { id: string; orgId: string } | undefined,
  method: ClientAttemptMethod,
): Promise<boolean> {
  if (!(error instanceof OAuthError && error.attemptedClient) || !client) return true;
  const window = await deps.store.takeRateLimit({
    orgId: client.orgId,
    key: `client-auth-failure:${client.id}`,
    now: deps.now(),
    ...CLIENT_AUTH_FAILURES_AUDITED,
  });
  if (!window.allowed) deps.attemptMetrics?.unaudited({ method, outcome: 'failure', reason: error.code });
  return window.allowed;
}

async function record(deps: OAuthDeps, type: string, client: { id: string } | undefined, audit: AuditNotes, error: unknown): Promise<void> {
  const now = deps.now();
  await recordEvent(deps.store, now, audit.orgId!, type, {
    result: error === undefined ? 'granted' : 'refused',
    client_id: client?.id ?? null,
    subject: audit.subject ?? null,
    actor: audit.actor ?? null,
    requested_token_type: audit.requestedTokenType ?? null,
    ...(error === undefined ? {} : { error: error instanceof OAuthError ? error.code : 'server_error' }),
  });
}
