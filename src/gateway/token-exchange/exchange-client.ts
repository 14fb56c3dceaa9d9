import { request } from 'undici';
import { GatewayError } from '../proxy/gateway-error.ts';

export interface TokenResponse {
  accessToken: string;
  /** Absolute expiry in ms, from expires_in; undefined when the service gave none. */
  expiresAt: number | undefined;
}

/**
 * One form POST to `<service_base_url>/oauth2/tokens` with a deadline. Anything but a 200
 * with a usable access_token is a 502; the log cause names the status and the OAuth error
 * code, never a token.
 */
export async function postTokenRequest(
  url: string,
  form: URLSearchParams,
  basic: { id: string; secret: string } | undefined,
  timeoutMs: number,
  what: string,
): Promise<TokenResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (basic) headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}`;
  const started = Date.now();
  let status: number;
  let text: string;
  try {
    const response = await request(url, { method: 'POST', headers, body: form.toString(), headersTimeout: timeoutMs, bodyTimeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
    status = response.statusCode;
    text = await response.body.text();
  } catch (error) {
    const timedOut = Date.now() - started >= timeoutMs - 5;
    throw new GatewayError(502, timedOut ? 'GATEWAY_TOKEN_ENDPOINT_TIMEOUT' : 'GATEWAY_TOKEN_ENDPOINT_UNREACHABLE', `${what} failed: the token endpoint ${timedOut ? 'did not answer in time' : 'could not be reached'}`, { cause: error });
  }
  let body: { access_token?: unknown; expires_in?: unknown; error?: unknown } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  if (status !== 200) {
    const code = typeof body?.error === 'string' ? body.error.slice(0, 64) : 'no OAuth error code';
    throw new GatewayError(502, 'GATEWAY_TOKEN_ENDPOINT_REFUSED', `${what} failed: the token endpoint answered ${status}`, { cause: new Error(`${status} ${code}`) });
  }
  if (typeof body?.access_token !== 'string' || body.access_token === '') {
    throw new GatewayError(502, 'GATEWAY_TOKEN_ENDPOINT_MALFORMED', `${what} failed: the token endpoint's answer has no access_token`, { cause: new Error(body ? 'no access_token' : 'not JSON') });
  }
  const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : undefined;
  return { accessToken: body.access_token, expiresAt: expiresIn === undefined ? undefined : Date.now() + expiresIn * 1000 };
}
