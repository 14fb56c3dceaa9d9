import type { JWK } from 'jose';
import { SingleFlight } from '../../concurrency/single-flight.ts';
import { GuardedGet, GuardedGetError } from '../../egress/guarded-get.ts';

const MAX_DOCUMENT_BYTES = 256 * 1024;
const DEFAULT_FETCH_TIMEOUT_MS = 2_000;
export const DEFAULT_COOLDOWN_MS = 30_000;
/** SPIFFE bundle `spiffe_refresh_hint` (seconds): used when absent, and clamped so that a bad
 * hint can neither make us poll the bundle endpoint hard nor trust a removed key for long. */
const DEFAULT_REFRESH_S = 300;
const MIN_REFRESH_S = 30;
const MAX_REFRESH_S = 86_400;

export interface JwksCacheOptions {
  fetchTimeoutMs?: number;
  /** Bundles may be on loopback (development mode, tests); the service's other networks never are. */
  allowLoopback?: boolean;
  /** Least time between two fetches of one URL caused by an unknown kid or by a failure. */
  cooldownMs?: number;
  now?: () => number;
  /** Told about every failed fetch, including those hidden by a still usable older set. */
  onError?: (error: JwksFetchError) => void;
}

/** A key set could not be fetched or was not one. The message names the URL, never a key. */
export class JwksFetchError extends Error {
  readonly url: string;

  constructor(url: string, reason: string, options?: { cause?: unknown }) {
    super(`JWKS ${url}: ${reason}`, options);
    this.name = 'JwksFetchError';
    this.url = url;
  }
}

interface Entry {
  keys?: ReadonlyMap<string, JWK>;
  freshUntil: number;
  lastAttemptAt?: number;
  lastError?: JwksFetchError;
}

/**
 * Trust-domain key sets (SPIFFE bundles in JWKS form), fetched on demand and cached per URL.
 * A set is reused until its refresh hint runs out; an unknown kid (a fresh rotation) refetches
 * at most once per cooldown, so forged kids cannot turn us into a load generator. A failed
 * refetch keeps the last good set (stale-if-error) and retries after the cooldown: a bundle
 * endpoint's outage must not become ours.
 */
export class JwksCache {
  readonly #cooldownMs: number;
  readonly #now: () => number;
  readonly #onError: ((error: JwksFetchError) => void) | undefined;
  readonly #entries = new Map<string, Entry>();
  readonly #fetches = new SingleFlight<string, void>();
  /** Bundle URLs are an organisation's to choose: fetched under the address policy, at every connection. */
  readonly #get: GuardedGet;

  constructor(options: JwksCacheOptions = {}) {
    this.#get = new GuardedGet({
      allowLoopback: options.allowLoopback ?? false,
      timeoutMs: options.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
      maxBytes: MAX_DOCUMENT_BYTES,
    });
    this.#cooldownMs = options.cooldownMs ?? DEFAULT_COOLDOWN_MS;
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError;
  }

  /** The JWT-SVID key `kid` of the set at `url`, undefined if the set has none; throws
   * JwksFetchError when no good set has ever been fetched. */
  async getKey(url: string, kid: string): Promise<JWK | undefined> {
    let entry = this.#entries.get(url);
    if (!entry) this.#entries.set(url, (entry = { freshUntil: 0 }));
    // Wait for a fetch under way, without yielding when there is none: a caller that yielded
    // could miss starting a fetch and find the cooldown running instead.
    const fetching = this.#fetches.current(url);
    if (fetching) await fetching;
    const now = this.#now();
    const mayRetry = entry.lastAttemptAt === undefined || now - entry.lastAttemptAt >= this.#cooldownMs;
    if (entry.keys ? now >= entry.freshUntil || (!entry.keys.has(kid) && mayRetry) : mayRetry) {
      await this.#refresh(url, entry);
    }
    if (!entry.keys) throw entry.lastError ?? new JwksFetchError(url, 'not fetched');
    return entry.keys.get(kid);
  }

  /** Closes the kept-alive connections to bundle endpoints. */
  close(): Promise<void> {
    return this.#get.close();
  }

  #refresh(url: string, entry: Entry): Promise<void> {
    // Concurrent callers share one request.
    return this.#fetches.run(url, () => this.#attempt(url, entry));
  }

  async #attempt(url: string, entry: Entry): Promise<void> {
    entry.lastAttemptAt = this.#now();
    try {
      const { keys, refreshS } = parseBundle(url, await this.#get.json(new URL(url), 'application/jwk-set+json, application/json'));
      entry.keys = keys;
      entry.freshUntil = this.#now() + refreshS * 1000;
      entry.lastError = undefined;
    } catch (error) {
      const failure =
        error instanceof JwksFetchError
          ? error
          : new JwksFetchError(url, error instanceof GuardedGetError ? error.message : 'could not be fetched', { cause: error });
      entry.lastError = failure;
      // Stale-if-error: keep the old set, and try again once the cooldown has passed.
      if (entry.keys) entry.freshUntil = Math.max(entry.freshUntil, entry.lastAttemptAt + this.#cooldownMs);
      try {
        this.#onError?.(failure);
      } catch {
        // A failing observer must not fail verification.
      }
    }
  }
}

function parseBundle(url: string, document: unknown): { keys: ReadonlyMap<string, JWK>; refreshS: number } {
  if (!isObject(document) || !Array.isArray(document.keys)) throw new JwksFetchError(url, 'is not a JWKS ("keys" must be an array)');
  const keys = new Map<string, JWK>();
  const ambiguous = new Set<string>();
  for (const key of document.keys as unknown[]) {
    // x509-svid keys are CA certificates for X.509-SVIDs, not JWT-SVID signers. Every allowed
    // algorithm is EC or RSA, and a published private key is a mistake we do not build on.
    if (!isObject(key) || key.use !== 'jwt-svid' || typeof key.kid !== 'string' || key.kid === '') continue;
    if ((key.kty !== 'EC' && key.kty !== 'RSA') || 'd' in key) continue;
    if (keys.has(key.kid)) ambiguous.add(key.kid);
    keys.set(key.kid, key as JWK);
  }
  // Two keys under one kid: either could be meant, so neither is trusted.
  for (const kid of ambiguous) keys.delete(kid);
  const hint = document.spiffe_refresh_hint;
  const refreshS = typeof hint === 'number' && Number.isFinite(hint) ? Math.min(MAX_REFRESH_S, Math.max(MIN_REFRESH_S, hint)) : DEFAULT_REFRESH_S;
  return { keys, refreshS };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
