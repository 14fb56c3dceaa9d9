import { hash } from 'node:crypto';
import { realSchedule } from '../../../concurrency/refresh-with-backoff.ts';
import { TOKEN_TYPE } from '../../../oauth/tokens/token-types.ts';
import { ATTRIBUTE, noteOnSpan, tracingOn } from '../../../telemetry/spans.ts';
import { GatewayError } from '../../request/gateway-error.ts';
import type { PluginContext, RequestPlugin } from '../plugin.ts';
import { type ActorSource, type ActorToken, OAuthClientActor, svidSource } from './actor-sources.ts';
import { clientAuthenticationOf } from './client-authentication.ts';
import { countCookie, readToken, stripToken, type TokenLocation } from './credentials.ts';
import { DelegatedTokenCache } from './delegated-token-cache.ts';
import { postTokenRequest } from './exchange-client.ts';
import type { TokenExchangeParams } from './schema.ts';

const sha256 = (text: string) => hash('sha256', text, 'base64url');

/** The actor token changes once per renewal, so its hash is kept rather than taken per request. */
function lastHash(): (text: string) => string {
  let text = '';
  let digest = '';
  return (next) => (next === text ? digest : (digest = sha256((text = next))));
}

/**
 * Spec §1, §4.1: swaps the caller's token for a delegated one before the request goes on.
 * Every failure throws before a header is written, so nothing of the request leaves.
 */
export interface PluginOptions {
  workloadApi?: ActorSource;
  oauthClient?: ActorSource;
  /** The clock of the delegated-token cache and of the SVID file's reload interval; tests freeze it. */
  now?: () => number;
  /** Hears of a client key file that changed into one that cannot sign (the last good key is kept). */
  reportKeyFailure?: (reason: string) => void;
}

/** Where a token is read from, in words for the caller: `header Authorization`, `cookie session`. */
const describe = (at: TokenLocation) => (at.header ? `header ${at.header}` : `cookie ${at.cookie}`);

/**
 * The token at `at`, or a 401: missing (spec §7.1), or malformed and refused here without
 * asking the token endpoint, with RFC 6750's challenge.
 */
function requireToken(headers: PluginContext['headers'], at: TokenLocation, party: 'subject' | 'actor'): string {
  const reading = readToken(headers, at);
  if (reading.kind === 'token') return reading.token;
  const code = party === 'subject' ? 'GATEWAY_SUBJECT_MISSING' : 'GATEWAY_ACTOR_MISSING';
  if (reading.kind === 'missing')
    throw new GatewayError(code, `the request carries no ${party} token (${describe(at)})`, { headers: { 'www-authenticate': 'Bearer' } });
  throw new GatewayError(
    party === 'subject' ? 'GATEWAY_SUBJECT_MALFORMED' : 'GATEWAY_ACTOR_MALFORMED',
    `the ${party} token (${describe(at)}) ${reading.reason}`,
    {
      headers: { 'www-authenticate': `Bearer error="invalid_token", error_description="the ${party} token is malformed"` },
    },
  );
}

/** How long a readiness probe waits for the actor source (a mint goes on, shared by later probes). */
const READINESS_TIMEOUT_MS = 2_000;

export function tokenExchangePlugin(id: string, enabled: boolean, params: TokenExchangeParams, sources: PluginOptions = {}): RequestPlugin {
  const svids =
    params.actor.mode === 'gate_svid' ? (params.actor.source === 'workload_api' ? sources.workloadApi : svidSource(params.actor, sources.now)) : undefined;
  // One authentication for the client's own mints and the exchanges: one key file, one issuer look-up.
  const client = clientAuthenticationOf(params, { svids, reportKeyFailure: sources.reportKeyFailure });
  const source = params.actor.mode === 'oauth_client' ? (sources.oauthClient ?? new OAuthClientActor(params, realSchedule, client)) : svids;
  if (params.actor.mode !== 'request_actor' && !source) throw new TypeError(`plugin ${id}: no actor source for ${JSON.stringify(params.actor)}`);
  const subjectAt: TokenLocation = { header: params.subject.header, cookie: params.subject.cookie };
  const actorAt: TokenLocation | undefined = params.actor.mode === 'request_actor' ? { header: params.actor.header, cookie: params.actor.cookie } : undefined;
  const cache = params.cache.enabled ? new DelegatedTokenCache(params.cache.maxEntries, params.cache.maxTtlMs, sources.now) : undefined;
  const fixed = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', requested_token_type: params.requestedTokenType });
  if (params.scope) fixed.set('scope', params.scope);
  for (const audience of params.audience) fixed.append('audience', audience);
  for (const resource of params.resource) fixed.append('resource', resource);
  if (params.requestedExpiresIn) fixed.set('requested_expires_in', String(params.requestedExpiresIn));
  const tokenUrl = `${params.serviceBaseUrl}/oauth2/tokens`;
  const actorHash = lastHash();
  const outputHeader = params.outputHeader.toLowerCase();

  async function exchange(subject: string, actor: ActorToken) {
    const form = new URLSearchParams(fixed);
    form.set('subject_token', subject);
    form.set('subject_token_type', params.subject.tokenType ?? (subject.startsWith('eyJ') ? TOKEN_TYPE.jwt : TOKEN_TYPE.accessToken));
    form.set('actor_token', actor.token);
    form.set('actor_token_type', actor.type);
    const { accessToken, expiresAt } = await postTokenRequest(tokenUrl, form, client, params.timeoutMs, 'the token exchange');
    return { token: accessToken, expiresAt };
  }

  return {
    id,
    enabled,
    close: async () => (source as { close?: () => void } | undefined)?.close?.(),
    // Asking the source is the check: it answers from its cache while its token is valid, so
    // a probe costs nothing then, and when the token is due it proves the source still works.
    // Bounded, so a token endpoint that hangs makes the gateway unready rather than the probe late.
    async unready() {
      if (!source) return undefined;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`plugin "${id}": its actor source did not answer within ${READINESS_TIMEOUT_MS / 1000} s`), READINESS_TIMEOUT_MS);
      });
      const asked = source.actor().then(
        () => undefined,
        (error: Error) => `plugin "${id}": ${error.message}`,
      );
      return Promise.race([asked, late]).finally(() => clearTimeout(timer));
    },
    async run({ headers, forwardAuth }: PluginContext) {
      // The proxy in front of forward auth strips the subject cookie as its configuration says
      // (nginx's map, Caddy's header_up: one spelling, or only the first): a second one, or
      // `Session`, `%73ession`, would reach the upstream, which may read it as the session.
      if (forwardAuth && subjectAt.cookie && countCookie(headers, subjectAt.cookie) > 1)
        throw new GatewayError('GATEWAY_SUBJECT_MALFORMED', `the subject cookie ${subjectAt.cookie} is given more than once (in some spelling)`, {
          headers: { 'www-authenticate': 'Bearer error="invalid_token", error_description="the subject token is given more than once"' },
        });
      const subject = requireToken(headers, subjectAt, 'subject');
      let actor: ActorToken;
      if (actorAt) {
        const token = requireToken(headers, actorAt, 'actor');
        actor = { token, type: token.startsWith('eyJ') ? TOKEN_TYPE.jwt : TOKEN_TYPE.accessToken };
      } else {
        actor = await source!.actor();
      }
      const key = `${id}:${sha256(subject)}:${actorHash(actor.token)}`;
      const fresh = cache?.fresh(key);
      if (tracingOn()) noteOnSpan({ [ATTRIBUTE.tokenCache]: cache ? (fresh ? 'hit' : 'miss') : 'off' });
      const delegated = cache ? (fresh ?? (await cache.get(key, () => exchange(subject, actor)))) : (await exchange(subject, actor)).token;
      if (params.subject.strip) stripToken(headers, subjectAt, subject);
      if (actorAt && params.actor.mode === 'request_actor' && params.actor.strip) stripToken(headers, actorAt, actor.token);
      headers[outputHeader] = `${params.outputPrefix}${delegated}`;
    },
  };
}
