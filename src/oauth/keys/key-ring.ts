import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { SingleFlightOne } from '../../concurrency/single-flight.ts';
import { MAX_TOKEN_LIFETIME_SECONDS } from '../../config/defaults.ts';
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

  constructor(store: SigningKeyStore, secret: string, now: () => number = Date.now) {
    this.#store = store;
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
          sealError = new Error(`cannot unseal signing key ${record.kid}: TESSERA_SECRET is not the secret it was sealed with`);
        }
      }
    }
    this.#keys = keys;
    this.#active = active;
    this.#sealError = sealError;
    this.#loadedAt = now;
  }
}
