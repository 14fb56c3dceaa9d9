import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { SingleFlightOne } from '../../concurrency/single-flight.ts';
import { MAX_TOKEN_LIFETIME_SECONDS } from '../../config/defaults.ts';
import { DEVELOPMENT_SECRET } from '../../config/service-config.ts';
import { newId } from '../../crypto/ids.ts';
import { SecretBox } from '../../crypto/secret-box.ts';
import type { SigningKeyStore } from '../../store/signing-keys/store.ts';
import type { SigningKey } from '../../store/types.ts';

export const SIGNING_ALG = 'ES256';

/** How long a replica may keep signing with a key another replica has just rotated away. */
export const RELOAD_INTERVAL_MS = 30_000;
/** Unknown kids trigger a reload at most this often, so forged kids cannot hammer the database. */
const UNKNOWN_KID_COOLDOWN_MS = 5_000;

interface ActiveKey {
  kid: string;
  privateKey: KeyObject;
}

interface LoadedKey {
  record: SigningKey;
  publicKey: KeyObject;
}

/**
 * The service's JWT signing keys. Kept in the store (private halves sealed), cached here and
 * reloaded periodically. A retired key stays published, and usable for verification, until
 * every token it can have signed has expired.
 */
export class KeyRing {
  readonly #store: SigningKeyStore;
  readonly #box: SecretBox;
  readonly #now: () => number;
  #keys = new Map<string, LoadedKey>();
  #active: ActiveKey | undefined;
  #loadedAt = 0;
  #lastUnknownKidReload = 0;
  readonly #loading = new SingleFlightOne<void>();
  /** Why the active key could not be unsealed, if it could not: signing fails, verifying goes on. */
  #sealError: Error | undefined;

  readonly #secret: string;

  constructor(store: SigningKeyStore, secret: string, now: () => number = Date.now) {
    this.#store = store;
    this.#secret = secret;
    this.#box = new SecretBox(secret, 'signing-key-encryption');
    this.#now = now;
  }

  /** Creates the first key when there is none (safe when replicas start together), then loads. */
  async init(): Promise<void> {
    const keys = await this.#store.listSigningKeys();
    if (!keys.some((k) => k.status === 'active')) await this.#store.ensureActiveSigningKey(await this.generate());
    await this.#reload();
    if (this.#sealError) throw this.#sealError;
  }

  /** A fresh key, its private half sealed; not yet stored. */
  async generate(): Promise<SigningKey> {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const kid = newId('key').slice(4);
    const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid, alg: SIGNING_ALG, use: 'sig' };
    const privateJwk = privateKey.export({ format: 'jwk' });
    return {
      kid,
      alg: SIGNING_ALG,
      publicJwk,
      sealedPrivateJwk: this.#box.seal(JSON.stringify(privateJwk)),
      status: 'active',
      createdAt: this.#now(),
      retiredAt: null,
    };
  }

  async signingKey(): Promise<ActiveKey> {
    if (this.#now() - this.#loadedAt > RELOAD_INTERVAL_MS || !this.#active) await this.#reload();
    if (!this.#active) throw this.#sealError ?? new Error('no active signing key; run "tessera admin rotate-keys"');
    return this.#active;
  }

  /** The public key for a kid, reloading once in a while when the kid is unknown (a fresh rotation). */
  async verificationKey(kid: string): Promise<KeyObject | undefined> {
    if (this.#now() - this.#loadedAt > RELOAD_INTERVAL_MS) await this.#reload();
    let key = this.#keys.get(kid);
    if (!key && this.#now() - this.#lastUnknownKidReload > UNKNOWN_KID_COOLDOWN_MS) {
      this.#lastUnknownKidReload = this.#now();
      await this.#reload();
      key = this.#keys.get(kid);
    }
    return key?.publicKey;
  }

  async jwks(): Promise<{ keys: JsonWebKey[] }> {
    if (this.#now() - this.#loadedAt > RELOAD_INTERVAL_MS) await this.#reload();
    return { keys: [...this.#keys.values()].map((k) => k.record.publicJwk as JsonWebKey) };
  }

  #reload(): Promise<void> {
    // Concurrent callers share one reload.
    return this.#loading.run(() => this.#load());
  }

  async #load(): Promise<void> {
    const now = this.#now();
    // A retired key may still have signed for one reload interval after retirement, plus clock skew.
    const published = (MAX_TOKEN_LIFETIME_SECONDS + 60) * 1000 + RELOAD_INTERVAL_MS;
    const records = (await this.#store.listSigningKeys()).filter((k) => k.status === 'active' || (k.retiredAt !== null && k.retiredAt + published > now));
    const keys = new Map<string, LoadedKey>();
    let active: ActiveKey | undefined;
    let sealError: Error | undefined;
    for (const record of records) {
      keys.set(record.kid, { record, publicKey: createPublicKey({ key: record.publicJwk as JsonWebKey, format: 'jwk' }) });
      if (record.status === 'active') {
        try {
          const privateJwk = JSON.parse(this.#box.open(record.sealedPrivateJwk)) as JsonWebKey;
          active = { kid: record.kid, privateKey: createPrivateKey({ key: privateJwk, format: 'jwk' }) };
        } catch {
          sealError = new Error(`cannot unseal signing key ${record.kid}: ${this.#whySealed(record.sealedPrivateJwk)}`);
        }
      }
    }
    this.#keys = keys;
    this.#active = active;
    this.#sealError = sealError;
    this.#loadedAt = now;
  }

  /**
   * Which secret sealed a key this one cannot open, when that can be known: the development
   * secret (TESSERA_DEV=1 without TESSERA_SECRET, what `npm start` runs) is tried, so that
   * the service started on a demo's database says so instead of only "not this secret".
   */
  #whySealed(sealed: string): string {
    const development = 'the development secret (TESSERA_DEV=1 without TESSERA_SECRET, as npm start runs)';
    if (this.#secret === DEVELOPMENT_SECRET)
      return `it was sealed with a TESSERA_SECRET, not with ${development}; set TESSERA_SECRET to the secret it was sealed with`;
    try {
      new SecretBox(DEVELOPMENT_SECRET, 'signing-key-encryption').open(sealed);
    } catch {
      return 'TESSERA_SECRET is not the secret it was sealed with (nor the development secret of TESSERA_DEV=1); set it to the one it was sealed with';
    }
    return `TESSERA_SECRET is not the secret it was sealed with, which is ${development}; run with TESSERA_DEV=1 and TESSERA_SECRET unset (development only), or use another database`;
  }
}
