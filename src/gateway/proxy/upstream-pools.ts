import { Pool } from 'undici';

/** Keep-alive connections to each upstream origin, opened on its first request. */
export class UpstreamPools {
  readonly #pools = new Map<string, Pool>();
  readonly #timeoutMs: number;

  /** `upstreamTimeoutMs`: an upstream that does not accept the connection, or answer with headers, in this long is unreachable (502) or late (504). */
  constructor(upstreamTimeoutMs: number) {
    this.#timeoutMs = upstreamTimeoutMs;
  }

  for(origin: string): Pool {
    let existing = this.#pools.get(origin);
    if (!existing) {
      existing = new Pool(origin, {
        connections: 256,
        keepAliveTimeout: 30_000,
        connect: { timeout: this.#timeoutMs },
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
      });
      this.#pools.set(origin, existing);
    }
    return existing;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((pool) => pool.close()));
  }
}
