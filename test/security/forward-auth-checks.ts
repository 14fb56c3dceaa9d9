import assert from 'node:assert/strict';
import type { RunningGateway } from '../../src/gateway/lifecycle.ts';
import { type Arrangement, head, hostOf, type RawResponse, type SecurityStack, sendRaw } from './harness.ts';

/**
 * What a user sees of one decision: the status, and whether the plugin swapped the caller's
 * token. A 200 without the swap on a path a rule protects is the breach these rows look for:
 * the user's proxy then forwards the request with the caller's own token.
 */
export interface Decision {
  status: number;
  exchanged: boolean;
}

export const credentialFor = (arrangement: Arrangement, token: string): [string, string] =>
  arrangement.startsWith('cookie') ? ['Cookie', `theme=dark; session=${token}`] : ['Authorization', `Bearer ${token}`];

/** A check as a proxy sends it: to the forward-auth port, with that port's Host unless `headers` name another. */
export function askCheck(gateway: RunningGateway, headers: [string, string][], method = 'GET', target = '/'): Promise<RawResponse> {
  const url = gateway.forwardAuthUrl!;
  const own: [string, string][] = headers.some(([name]) => name.toLowerCase() === 'host') ? [] : [['Host', hostOf(url)]];
  return sendRaw(url, head(method, target, [...own, ...headers]));
}

/** The proxy port's decision on a request sent as it is: what the upstream received, if anything. */
export async function proxyDecision(
  s: SecurityStack,
  gateway: RunningGateway,
  token: string,
  method: string,
  target: string,
  headers: [string, string][],
): Promise<Decision> {
  const before = s.upstream.requests.length;
  const response = await sendRaw(gateway.url, head(method, target, headers));
  const seen = s.upstream.requests.length > before ? s.upstream.requests.at(-1)! : undefined;
  const exchanged = seen !== undefined && (seen.headers.authorization ?? '').startsWith('Bearer eyJ') && !seen.rawHeaders.join('\n').includes(token);
  return { status: response.status, exchanged };
}

/**
 * The forward-auth port's decision on a check: never forwards anything itself, never answers
 * with the caller's token, and a 200 carries the delegated token exactly when the plugin ran.
 */
export async function checkDecision(s: SecurityStack, gateway: RunningGateway, token: string, headers: [string, string][], method = 'GET', target = '/') {
  const before = s.upstream.requests.length;
  const response = await askCheck(gateway, headers, method, target);
  assert.equal(s.upstream.requests.length, before, 'a check forwards nothing');
  const answered = Object.entries(response.headers).map(([name, value]) => `${name}: ${value}`);
  assert.ok(!answered.join('\n').includes(token), `the answer carries the caller's token: ${answered.join(' | ')}`);
  const exchanged = response.status === 200 && (response.headers.authorization ?? '').startsWith('Bearer eyJ');
  return { status: response.status, exchanged, response };
}

/** The check must decide as the proxy port did for the same request. */
export function assertSameDecision(check: Decision & { response: RawResponse }, proxy: Decision, what: string): void {
  assert.deepEqual(
    { status: check.status, exchanged: check.exchanged },
    { status: proxy.status, exchanged: proxy.exchanged },
    `${what}: the check answered ${check.status} ${check.response.body}`,
  );
}

/** The code of a gateway error answer. */
export const codeOf = (response: RawResponse) => /"code":"([A-Z_]+)"/.exec(response.body)?.[1];
