import type { Agent } from 'undici';
import { checkLiteralHost, forbiddenIn, guardedLookup, type ResolveAll } from './address-policy.ts';
import { undici } from './undici.ts';

export interface GuardedGetOptions {
  /** Loopback may be reached (development mode, tests); the other forbidden networks never are. */
  allowLoopback: boolean;
  /** The whole exchange, headers and body. */
  timeoutMs: number;
  maxBytes: number;
  /** How a name is resolved when connecting; the system resolver unless given (tests answer for a name). */
  resolveAll?: ResolveAll;
}

/** Why a document could not be had; the message names the reason, never the body. */
export class GuardedGetError extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'GuardedGetError';
  }
}

/**
 * GETs JSON documents from URLs a tenant chose, under the address policy at every connection
 * (DNS rebinding after a URL was registered gains nothing), with no redirects (undici's request
 * follows none), a timeout over the whole exchange and a bound on the body.
 */
export class GuardedGet {
  readonly #options: GuardedGetOptions;
  #dispatcher: Agent | undefined;
  #closed = false;

  constructor(options: GuardedGetOptions) {
    this.#options = options;
  }

  async json(url: URL, accept: string): Promise<unknown> {
    // An IP literal never reaches the lookup: its address is checked here.
    const refused = checkLiteralHost(url, this.#options);
    if (refused) throw new GuardedGetError(refused.message);
    const signal = AbortSignal.timeout(this.#options.timeoutMs);
    let text: string;
    try {
      const { Agent, request } = await undici();
      if (this.#closed) throw new GuardedGetError('is not fetched: the service is shutting down');
      this.#dispatcher ??= new Agent({ connect: { lookup: guardedLookup(this.#options), timeout: this.#options.timeoutMs } });
      const response = await request(url, { method: 'GET', headers: { accept }, signal, dispatcher: this.#dispatcher });
      if (response.statusCode < 200 || response.statusCode > 299) {
        await response.body.dump();
        throw new GuardedGetError(`answered HTTP ${response.statusCode}`);
      }
      if (!/^application\/([\w.-]+\+)?json\s*(;|$)/i.test(String(response.headers['content-type'] ?? ''))) {
        await response.body.dump();
        throw new GuardedGetError('did not answer JSON (Content-Type)');
      }
      text = await this.#read(response.body);
    } catch (error) {
      if (error instanceof GuardedGetError) throw error;
      const forbidden = forbiddenIn(error);
      if (forbidden) throw new GuardedGetError(forbidden.message, { cause: error });
      throw new GuardedGetError(signal.aborted ? `timed out (no answer within ${this.#options.timeoutMs} ms)` : `could not be reached (${codeOf(error)})`, {
        cause: error,
      });
    }
    try {
      return JSON.parse(text);
    } catch {
      // The parser's message would quote the body.
      throw new GuardedGetError('answered something that is not JSON');
    }
  }

  async #read(body: AsyncIterable<Buffer>): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > this.#options.maxBytes) throw new GuardedGetError(`answered more than ${this.#options.maxBytes} bytes`);
      chunks.push(chunk);
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    } catch {
      throw new GuardedGetError('answered something that is not UTF-8');
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#dispatcher?.close();
  }
}

/** The system error code under undici's wrapping (ECONNREFUSED, ENOTFOUND, …), for the log. */
function codeOf(error: unknown): string {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
  }
  return error instanceof Error ? error.name : 'error';
}
