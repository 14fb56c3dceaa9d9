import { Agent, type Dispatcher } from 'undici';

/**
 * Keep-alive connections to token endpoints, of this undici and not the global dispatcher
 * (Node's bundled undici, a second copy that would cost ~10 MiB more to load); one agent per
 * timeout, because the connect timeout is an agent's setting and must not outlast the
 * deadline, or an unreachable endpoint would pile up half-open sockets for undici's 10 s.
 */
const agents = new Map<number, Agent>();
function agentFor(timeoutMs: number): Agent {
  let agent = agents.get(timeoutMs);
  if (!agent) agents.set(timeoutMs, (agent = new Agent({ keepAliveTimeout: 30_000, connect: { timeout: timeoutMs } })));
  return agent;
}

const MAX_RESPONSE_BYTES = 65_536;

/**
 * One request to the service (a token POST, the metadata GET) through undici's dispatch
 * handler: the answer is a few hundred bytes, so it is gathered in memory rather than read
 * through a response stream built per request. The deadline covers connecting too: it
 * settles the promise even before a socket exists.
 */
export function sendRequest(
  method: 'GET' | 'POST',
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  const { origin, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    let status = 0;
    let bytes = 0;
    const chunks: Buffer[] = [];
    let controller: Dispatcher.DispatchController | undefined;
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      outcome();
    };
    const deadline = setTimeout(() => {
      const error = new Error('the deadline passed');
      settle(() => reject(error));
      controller?.abort(error);
    }, timeoutMs);
    agentFor(timeoutMs).dispatch(
      { origin, path: `${pathname}${search}`, method, headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs },
      {
        onRequestStart(c) {
          controller = c;
          if (settled) c.abort(new Error('the deadline passed'));
        },
        onResponseStart(_c, statusCode) {
          status = statusCode;
        },
        onResponseData(c, chunk) {
          bytes += chunk.length;
          chunks.push(chunk);
          // A token response or metadata document is small; past 64 KiB it is not one: stop reading, and the
          // truncated text is then no JSON (MALFORMED, or REFUSED with its status).
          if (bytes > MAX_RESPONSE_BYTES) {
            settle(() => resolve({ status, text: '' })); // before abort, whose error comes back at once
            c.abort(new Error('the token response is too large'));
          }
        },
        onResponseEnd() {
          settle(() => resolve({ status, text: Buffer.concat(chunks).toString('utf8') }));
        },
        onResponseError(_c, error) {
          settle(() => reject(error));
        },
      },
    );
  });
}
