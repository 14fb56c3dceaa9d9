import { SingleFlight } from '../../../concurrency/single-flight.ts';

/**
 * Delegated tokens by (plugin, subject hash, actor, parameters), until shortly before they
 * expire and at most `maxTtlMs`; bounded, oldest first out; concurrent identical misses share
 * one exchange. The TTL bound is how long a revocation at the service (a deleted person, a
 * revoked subject) can go unnoticed here: past it, the next request asks the service again.
 */
export class DelegatedTokenCache {
  readonly #max: number;
  readonly #maxTtlMs: number;
  readonly #now: () => number;
  readonly #entries = new Map<string, { token: string; freshUntil: number }>();
  readonly #exchanges = new SingleFlight<string, string>();

  constructor(maxEntries: number, maxTtlMs: number, now: () => number = Date.now) {
    this.#max = maxEntries;
    this.#maxTtlMs = maxTtlMs;
    this.#now = now;
  }

  /** The cached token while it is fresh; the hit path, with no promise to await. */
  fresh(key: string): string | undefined {
    const hit = this.#entries.get(key);
    return hit && hit.freshUntil > this.#now() ? hit.token : undefined;
  }

  async get(key: string, exchange: () => Promise<{ token: string; expiresAt: number | undefined }>): Promise<string> {
    const hit = this.#entries.get(key);
    if (hit && hit.freshUntil > this.#now()) return hit.token;
    if (hit) this.#entries.delete(key);
    return this.#exchanges.run(key, () =>
      exchange().then(({ token, expiresAt }) => {
        // Kept for 90 % of its remaining life, so no upstream ever sees it expire in flight.
        const now = this.#now();
        if (expiresAt !== undefined) this.#store(key, token, now + Math.min((expiresAt - now) * 0.9, this.#maxTtlMs));
        return token;
      }),
    );
  }

  get size(): number {
    return this.#entries.size;
  }

  #store(key: string, token: string, freshUntil: number): void {
    if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { token, freshUntil });
  }
}
