import { createLocalJWKSet, type JWK, type JWTVerifyGetKey } from 'jose';
import { SingleFlight } from '../concurrency/single-flight.ts';
import { GuardedGet, GuardedGetError } from '../egress/guarded-get.ts';
import { usableKeys } from './client-keys.ts';

/** A fetched set is used this long before it is fetched again. */
const FRESH_MS = 5 * 60_000;
/** Design §4: an unknown kid (or a failure) refetches at most once a minute per client, so forged kids cannot make us a load generator. */
export const REFETCH_COOLDOWN_MS = 60_000;
const MAX_DOCUMENT_BYTES = 64 * 1024;
const FETCH_TIMEOUT_MS = 2_000;
const MAX_ENTRIES = 10_000;

/** What jwtVerify asks for a key: a local JWK Set, or a function in front of one. */
export type KeySet = JWTVerifyGetKey;

/** The client's keys could not be had from its jwks_uri; the message is for the log, never the caller. */
export class ClientKeysUnavailable extends Error {
  constructor(clientId: string, reason: string, options?: { cause?: unknown }) {
    super(`client ${clientId}: its jwks_uri ${reason}`, options);
    this.name = 'ClientKeysUnavailable';
  }
}

interface Entry {
  set?: KeySet;
  fetchedAt: number;
  lastAttemptAt: number;
  lastError?: ClientKeysUnavailable;
}

export interface ClientKeySetOptions {
  /** Development mode and tests: a jwks_uri may be on loopback. */
  allowLoopback: boolean;
  now?: () => number;
  /** Told about each failed fetch, including those a still usable older set hides. */
  onError?: (error: ClientKeysUnavailable) => void;
}

/**
 * The key sets of private_key_jwt clients registered with a jwks_uri (design §4): fetched under
 * the address policy of scim_pull, cached per client and URL for five minutes, refetched early
 * when an assertion names a kid the set lacks (a rotation), at most once a minute. A failed
 * refetch keeps the last good set: the client's outage must not become its lock-out.
 */
export class ClientKeySets {
  readonly #get: GuardedGet;
  readonly #now: () => number;
  readonly #onError: ((error: ClientKeysUnavailable) => void) | undefined;
  readonly #entries = new Map<string, Entry>();
  readonly #fetches = new SingleFlight<string, void>();

  constructor({ allowLoopback, now = Date.now, onError }: ClientKeySetOptions) {
    this.#get = new GuardedGet({ allowLoopback, timeoutMs: FETCH_TIMEOUT_MS, maxBytes: MAX_DOCUMENT_BYTES });
    this.#now = now;
    this.#onError = onError;
  }

  /**
   * The client's key set: the cached one while fresh, else fetched. With `unknownKid`, a set that
   * lacked the assertion's key is fetched again if the cooldown allows; the same set otherwise.
   */
  async keySet(clientId: string, jwksUri: string, { unknownKid = false } = {}): Promise<KeySet> {
    const cacheKey = `${clientId} ${jwksUri}`;
    let entry = this.#entries.get(cacheKey);
    if (!entry) {
      // Oldest first out: a client whose URL changed leaves its old entry to age away.
      if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
      this.#entries.set(cacheKey, (entry = { fetchedAt: 0, lastAttemptAt: -Infinity }));
    }
    const running = this.#fetches.current(cacheKey);
    if (running) await running;
    const now = this.#now();
    const mayRetry = now - entry.lastAttemptAt >= REFETCH_COOLDOWN_MS;
    const stale = !entry.set || now - entry.fetchedAt >= FRESH_MS;
    if ((stale || unknownKid) && (mayRetry || !entry.set)) {
      if (!entry.set && !mayRetry && entry.lastError) throw entry.lastError;
      await this.#fetches.run(cacheKey, () => this.#fetch(clientId, jwksUri, entry));
    }
    if (!entry.set) throw entry.lastError ?? new ClientKeysUnavailable(clientId, 'has not been fetched');
    return entry.set;
  }

  async #fetch(clientId: string, jwksUri: string, entry: Entry): Promise<void> {
    entry.lastAttemptAt = this.#now();
    try {
      const document = await this.#get.json(new URL(jwksUri), 'application/jwk-set+json, application/json');
      const keys = typeof document === 'object' && document !== null && 'keys' in document ? document.keys : undefined;
      if (!Array.isArray(keys)) throw new GuardedGetError('answered no JWK Set ("keys" must be an array)');
      const usable: JWK[] = await usableKeys(keys);
      if (usable.length === 0) throw new GuardedGetError('holds no key a client assertion may be signed with (ES256, EdDSA, RS256, PS256)');
      entry.set = createLocalJWKSet({ keys: usable });
      entry.fetchedAt = this.#now();
      entry.lastError = undefined;
    } catch (error) {
      entry.lastError = new ClientKeysUnavailable(clientId, error instanceof GuardedGetError ? error.message : 'could not be read', { cause: error });
      try {
        this.#onError?.(entry.lastError);
      } catch {
        // A failing observer must not fail authentication.
      }
    }
  }

  close(): Promise<void> {
    return this.#get.close();
  }
}
