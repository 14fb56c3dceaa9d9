/**
 * Concurrent callers of one piece of work share a single run of it: the first starts it, the
 * others get the same promise, success or failure; once it settles, the next call starts anew.
 * Keyed, so that one instance can hold a flight per URL or cache key.
 */
export class SingleFlight<Key, Value> {
  readonly #inFlight = new Map<Key, Promise<Value>>();

  run(key: Key, work: () => Promise<Value>): Promise<Value> {
    let flight = this.#inFlight.get(key);
    if (!flight) {
      flight = work().finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, flight);
    }
    return flight;
  }

  /** The run under way for `key`, if any: for callers that must wait for it but not start one. */
  current(key: Key): Promise<Value> | undefined {
    return this.#inFlight.get(key);
  }
}

/** A SingleFlight with one key, for work that has no key of its own (a reload, a mint). */
export class SingleFlightOne<Value> {
  readonly #flight = new SingleFlight<null, Value>();

  run(work: () => Promise<Value>): Promise<Value> {
    return this.#flight.run(null, work);
  }
}
