import type { Ledger, Outcome } from './ledger.ts';

/** No answer within this is a hang: the service must answer, if only 503, well before. */
export const ANSWER_TIMEOUT_MS = 15_000;

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * One request of the load, counted in the ledger under `operation`. A 500 anywhere, and a
 * 503 without Retry-After, are violations as they happen; no answer at all is `network` (a
 * replica killed under it) or `timeout` (a hang), and resolves undefined.
 */
export async function call(ledger: Ledger, operation: string, url: string, init: RequestInit = {}): Promise<Answer | undefined> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    text = await response.text();
  } catch (error) {
    const outcome: Outcome = (error as Error).name === 'TimeoutError' ? 'timeout' : 'network';
    ledger.record(operation, outcome);
    if (outcome === 'timeout') ledger.violation('hang', `${operation}: no answer within ${ANSWER_TIMEOUT_MS} ms from ${new URL(url).origin}`);
    return undefined;
  }
  ledger.record(operation, response.status);
  if (response.status === 500) ledger.violation('server error', `${operation}: 500 ${text.slice(0, 300)}`);
  if (response.status === 503) {
    ledger.unavailable++;
    if (!response.headers.get('retry-after')) ledger.violation('no retry-after', `${operation}: 503 without Retry-After: ${text.slice(0, 200)}`);
  }
  const body = response.headers.get('content-type')?.includes('json') && text ? parseJson(text) : text;
  // The API's code, the OAuth error, or for SCIM (whose errors carry prose) its scimType or status.
  if (response.status >= 400)
    ledger.refusedWith(response.status, body?.errors?.[0]?.code ?? body?.error ?? (body?.detail ? `SCIM ${body.scimType ?? 'error'}` : 'no code'));
  return { status: response.status, headers: response.headers, body };
}

function parseJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

export const form = (params: Record<string, string>, client?: { id: string; secret: string }): RequestInit => ({
  method: 'POST',
  headers: {
    'content-type': 'application/x-www-form-urlencoded',
    ...(client ? { authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64')}` } : {}),
  },
  body: new URLSearchParams(params).toString(),
});
