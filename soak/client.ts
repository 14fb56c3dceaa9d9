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
  let outcome: Outcome;
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    const text = await response.text();
    outcome = response.status;
    ledger.record(operation, outcome);
    if (response.status === 500) ledger.violation(`${operation}: 500 ${text.slice(0, 300)}`);
    if (response.status === 503) {
      ledger.unavailable++;
      if (!response.headers.get('retry-after')) ledger.violation(`${operation}: 503 without Retry-After: ${text.slice(0, 200)}`);
    }
    const json = response.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : text;
    if (response.status >= 400) ledger.refusedWith(response.status, json?.errors?.[0]?.code ?? json?.error ?? json?.detail ?? 'no code');
    return { status: response.status, headers: response.headers, body: json };
  } catch (error) {
    outcome = (error as Error).name === 'TimeoutError' ? 'timeout' : 'network';
    ledger.record(operation, outcome);
    if (outcome === 'timeout') ledger.violation(`${operation}: no answer within ${ANSWER_TIMEOUT_MS} ms from ${new URL(url).origin}`);
    return undefined;
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
