import { ApiError } from '../errors/api-error.ts';
import { sourceOf } from '../runtime/client-source.ts';

/**
 * At most `limit` password logins in flight (queued for a hash thread or running) from one
 * client address. The hash queue is shared by every caller; without this, one client sending
 * logins for made-up handles (each still costs a hash, so its answers tell nothing) fills the
 * queue and everyone else gets 503. With it, one address holds at most `limit` places.
 *
 * In memory, per replica: it bounds what one connection burst costs this process, which is
 * what the queue protects. Many addresses at once (a botnet) need a rate limit in front.
 */
export class LoginsPerSource {
  readonly limit: number;
  readonly #inFlight = new Map<string, number>();

  /** `limit` 0 turns the bound off. */
  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError('LoginsPerSource limit must be a non-negative integer');
    this.limit = limit;
  }

  /** Counts a login from `source` in; returns the function that counts it out, or throws 429. */
  enter(address: string): () => void {
    if (this.limit === 0) return () => {};
    const source = sourceOf(address);
    const count = this.#inFlight.get(source) ?? 0;
    if (count >= this.limit) throw tooManyInFlight(this.limit);
    this.#inFlight.set(source, count + 1);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      const remaining = (this.#inFlight.get(source) ?? 1) - 1;
      if (remaining === 0) this.#inFlight.delete(source);
      else this.#inFlight.set(source, remaining);
    };
  }

  /** Addresses with logins in flight (for tests and metrics: the map must not grow without bound). */
  get sources(): number {
    return this.#inFlight.size;
  }
}

function tooManyInFlight(limit: number): ApiError {
  const message = `authentication: ${limit} password logins from this address are already in progress; retry after the delay`;
  return new ApiError('TOO_MANY_LOGINS_IN_FLIGHT', message, { 'Retry-After': '1' });
}
