import { ATTRIBUTE, injectTraceContext, inSpan, SpanKind, serverOf, tracingOn } from '../../../telemetry/spans.ts';
import { GatewayError } from '../../request/gateway-error.ts';
import type { ClientAuthentication } from './client-authentication.ts';
import { sendRequest } from './service-http.ts';

export interface TokenResponse {
  accessToken: string;
  /** Absolute expiry in ms, from expires_in; undefined when the service gave none. */
  expiresAt: number | undefined;
}

/**
 * One form POST to `<service_base_url>/oauth2/tokens` with a deadline, the client's
 * credentials added (a fresh assertion for each, when it has a key). Anything but a 200
 * with a usable access_token is a 502; the log cause names the status and the OAuth error
 * code, never a token.
 */
export async function postTokenRequest(
  url: string,
  form: URLSearchParams,
  client: ClientAuthentication | undefined,
  timeoutMs: number,
  what: string,
): Promise<TokenResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  await client?.addTo(form, headers, what);
  const started = Date.now();
  let status: number;
  let text: string;
  try {
    ({ status, text } = await (tracingOn() ? postInSpan(url, headers, form, timeoutMs) : sendRequest('POST', url, headers, form.toString(), timeoutMs)));
  } catch (error) {
    const timedOut = Date.now() - started >= timeoutMs - 5;
    throw new GatewayError(
      timedOut ? 'GATEWAY_TOKEN_ENDPOINT_TIMEOUT' : 'GATEWAY_TOKEN_ENDPOINT_UNREACHABLE',
      `${what} failed: the token endpoint ${timedOut ? 'did not answer in time' : 'could not be reached'}`,
      { cause: error },
    );
  }
  let body: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  if (status !== 200) {
    const refused = refusal(status, body, what);
    if (refused.code === 'GATEWAY_CLIENT_REFUSED') client?.refused?.();
    throw refused;
  }
  if (typeof body?.access_token !== 'string' || body.access_token === '') {
    throw new GatewayError('GATEWAY_TOKEN_ENDPOINT_MALFORMED', `${what} failed: the token endpoint's answer has no access_token`, {
      cause: new Error(body ? 'no access_token' : 'not JSON'),
    });
  }
  const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : undefined;
  return { accessToken: body.access_token, expiresAt: expiresIn === undefined ? undefined : Date.now() + expiresIn * 1000 };
}

/** sendRequest in a client span, the token endpoint's spans its children (their `traceparent` is the span's). */
function postInSpan(url: string, headers: Record<string, string>, form: URLSearchParams, timeoutMs: number): Promise<{ status: number; text: string }> {
  const attributes = { ...serverOf(url), [ATTRIBUTE.grant]: form.get('grant_type') ?? '' };
  return inSpan(
    'POST token endpoint',
    attributes,
    async (span) => {
      injectTraceContext(headers);
      const answer = await sendRequest('POST', url, headers, form.toString(), timeoutMs);
      span?.setAttribute('http.response.status_code', answer.status);
      return answer;
    },
    SpanKind.CLIENT,
  );
}

/** Printable ASCII, bounded: what the service said goes to the log, and a log line is one line. */
const printable = (value: unknown, max: number) => (typeof value === 'string' ? value.replace(/[^\x20-\x7e]/g, '?').slice(0, max) : undefined);

/**
 * A non-200 answer, told apart for whoever debugs it: the service starts its descriptions
 * with the parameter at fault (docs/token-exchange.md), so a refused subject, a refused
 * actor and the gateway's own refused credentials each get their code. The caller sees the
 * party and the OAuth code; the service's description goes to the log only.
 */
function refusal(status: number, body: { error?: unknown; error_description?: unknown } | undefined, what: string): GatewayError {
  const code = printable(body?.error, 64) ?? 'no OAuth error code';
  const description = printable(body?.error_description, 200) ?? '';
  const cause = new Error(`${status} ${code}${description ? `: ${description}` : ''}`);
  if (status >= 500) return new GatewayError('GATEWAY_TOKEN_ENDPOINT_FAILED', `${what} failed: the token endpoint failed (${status} ${code})`, { cause });
  // An expired subject is the one refusal its caller can act on alone (by getting a new token),
  // so it is named; the description is matched whole, never passed on.
  if (description === 'subject_token has expired')
    return new GatewayError(
      'GATEWAY_SUBJECT_REFUSED',
      `${what} failed: the token endpoint refused the subject token, which has expired (${code}); get a new one`,
      {
        cause,
      },
    );
  if (description.startsWith('subject_token'))
    return new GatewayError('GATEWAY_SUBJECT_REFUSED', `${what} failed: the token endpoint refused the subject token (${code})`, { cause });
  if (description.startsWith('actor_token'))
    return new GatewayError('GATEWAY_ACTOR_REFUSED', `${what} failed: the token endpoint refused the actor token (${code})`, { cause });
  if (code === 'invalid_client')
    return new GatewayError('GATEWAY_CLIENT_REFUSED', `${what} failed: the token endpoint refused the gateway's client credentials (${code})`, { cause });
  return new GatewayError('GATEWAY_TOKEN_ENDPOINT_REFUSED', `${what} failed: the token endpoint refused the request (${status} ${code})`, { cause });
}
