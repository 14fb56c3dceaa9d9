import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { coseKey, encodeCbor, type SoftwareAlgorithm } from './cose-encoding.ts';

/**
 * A WebAuthn authenticator and browser in one, built on node:crypto alone (W3C WebAuthn §6.1,
 * §6.5, §7; CTAP2 canonical CBOR), so that tests check @simplewebauthn and our COSE parsing
 * against bytes neither of them made, and so that a passkey can be tried from a shell
 * (`tessera dev passkey`). It answers in @simplewebauthn/browser's JSON shape, i.e. what
 * navigator.credentials.create()/get() return after toJSON(). Not an authenticator to trust:
 * its private key is wherever `save()` is written.
 *
 * Bad variants are per-call options: `origin` and `rpId` other than the verifier expects, an old
 * `challenge` (a replay), `signCount` below the last one (a clone), `tamperSignature`, a
 * `userHandle` other than the credential's.
 */

export type { SoftwareAlgorithm };

export interface SoftwareAuthenticatorOptions {
  algorithm?: SoftwareAlgorithm;
  aaguid?: Uint8Array;
  /** The counter before the first use (default 0). */
  signCount?: number;
  /** false: always report 0, as authenticators without a counter (many synced passkeys) do. */
  counts?: boolean;
  /** RSA modulus size (default 2048); smaller ones show what a verifier refuses. */
  rsaBits?: number;
  /**
   * The user handle assertions carry, base64url: by default a random one, as a passkey registered
   * by another system (an import) has; null: none, as a non-discoverable credential answers.
   * register() replaces it with the options' user.id when given one.
   */
  userHandle?: string | null;
}

/** What `save()` writes and `restore()` reads: the key in PKCS#8 PEM, so keep it private. */
export interface SavedAuthenticator {
  algorithm: SoftwareAlgorithm;
  aaguid: string;
  credentialId: string;
  privateKeyPem: string;
  userHandle: string | null;
  signCount: number;
  counts: boolean;
}

export interface CeremonyOptions {
  challenge: string;
  rpId: string;
  origin: string;
  /** The UV flag (default true); UP is always set. */
  userVerified?: boolean;
}

export interface RegistrationOptions extends CeremonyOptions {
  /** The options' user.id (base64url): kept as the credential's user handle, as an authenticator does. */
  userId?: string;
}

export interface AssertionOptions extends CeremonyOptions {
  /** Report this counter instead of the next one (e.g. a lower one, as a clone would). */
  signCount?: number;
  /** Flip one bit of the signature after signing. */
  tamperSignature?: boolean;
  /** clientDataJSON.type (default webauthn.get). */
  type?: string;
  /** Send this user handle instead of the credential's (null: send none). It is outside the signature. */
  userHandle?: string | null;
}

/** A fixed, recognisable AAGUID, so tests can see it carried through. */
export const SOFTWARE_AAGUID = Uint8Array.from(Buffer.from('5e5e5e5e00114a2bb0c0ffee00c0ffee', 'hex'));

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

export class SoftwareAuthenticator {
  readonly algorithm: SoftwareAlgorithm;
  readonly aaguid: Uint8Array;
  /** base64url, as browsers send `id`. */
  readonly credentialId: string;
  readonly cosePublicKey: Uint8Array;
  #userHandle: string | null;
  #privateKey: KeyObject;
  #signCount: number;
  #counts: boolean;

  constructor(options: SoftwareAuthenticatorOptions = {}, saved?: SavedAuthenticator) {
    this.algorithm = saved?.algorithm ?? options.algorithm ?? 'ES256';
    this.aaguid = saved ? Buffer.from(saved.aaguid, 'hex') : (options.aaguid ?? SOFTWARE_AAGUID);
    this.credentialId = saved?.credentialId ?? randomBytes(32).toString('base64url');
    this.#userHandle = saved ? saved.userHandle : options.userHandle === undefined ? randomBytes(16).toString('base64url') : options.userHandle;
    this.#signCount = saved?.signCount ?? options.signCount ?? 0;
    this.#counts = saved?.counts ?? options.counts ?? true;
    const { privateKey, publicKey } = saved ? restoredKeys(saved.privateKeyPem) : generateKeys(this.algorithm, options.rsaBits ?? 2048);
    this.#privateKey = privateKey;
    this.cosePublicKey = coseKey(this.algorithm, publicKey);
  }

  /** The authenticator as it stands, counter included, to carry on later with `restore`. */
  save(): SavedAuthenticator {
    return {
      algorithm: this.algorithm,
      aaguid: Buffer.from(this.aaguid).toString('hex'),
      credentialId: this.credentialId,
      privateKeyPem: this.#privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      userHandle: this.#userHandle,
      signCount: this.#signCount,
      counts: this.#counts,
    };
  }

  static restore(saved: SavedAuthenticator): SoftwareAuthenticator {
    return new SoftwareAuthenticator({}, saved);
  }

  /** The user handle its assertions carry (base64url), or null for none. */
  get userHandle(): string | null {
    return this.#userHandle;
  }

  get signCount(): number {
    return this.#counts ? this.#signCount : 0;
  }

  /** navigator.credentials.create() with attestation "none" (W3C WebAuthn §8.7). */
  register(options: RegistrationOptions): RegistrationResponseJSON {
    if (options.userId !== undefined) this.#userHandle = options.userId;
    const credentialId = Buffer.from(this.credentialId, 'base64url');
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credentialId.length);
    const attested = Buffer.concat([this.aaguid, idLength, credentialId, this.cosePublicKey]);
    const authData = authenticatorData(options, FLAG_AT, this.signCount, attested);
    const attestationObject = encodeCbor(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: clientData('webauthn.create', options).toString('base64url'),
        attestationObject: Buffer.from(attestationObject).toString('base64url'),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** navigator.credentials.get(): signs authenticatorData || SHA-256(clientDataJSON) (§6.3.3). */
  assert(options: AssertionOptions): AuthenticationResponseJSON {
    if (this.#counts) this.#signCount += 1;
    const counter = options.signCount ?? this.signCount;
    const authData = authenticatorData(options, 0, counter, Buffer.alloc(0));
    const clientDataJSON = clientData(options.type ?? 'webauthn.get', options);
    const signed = Buffer.concat([authData, createHash('sha256').update(clientDataJSON).digest()]);
    const signature = signWith(this.algorithm, this.#privateKey, signed);
    if (options.tamperSignature) signature[signature.length - 1]! ^= 0x01;
    const userHandle = options.userHandle === undefined ? this.#userHandle : options.userHandle;
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      type: 'public-key',
      response: {
        clientDataJSON: clientDataJSON.toString('base64url'),
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        ...(userHandle === null ? {} : { userHandle }),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }
}

function clientData(type: string, options: CeremonyOptions): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge: options.challenge, origin: options.origin, crossOrigin: false }));
}

/** rpIdHash (32) | flags (1) | signCount (4, big-endian) | attested credential data (§6.1). */
function authenticatorData(options: CeremonyOptions, extraFlags: number, signCount: number, attested: Buffer): Buffer {
  const rpIdHash = createHash('sha256').update(options.rpId).digest();
  const flags = FLAG_UP | (options.userVerified === false ? 0 : FLAG_UV) | extraFlags;
  const counter = Buffer.alloc(4);
  counter.writeUInt32BE(signCount);
  return Buffer.concat([rpIdHash, Buffer.from([flags]), counter, attested]);
}

function generateKeys(algorithm: SoftwareAlgorithm, rsaBits: number): { privateKey: KeyObject; publicKey: KeyObject } {
  if (algorithm === 'ES256') return generateKeyPairSync('ec', { namedCurve: 'P-256' });
  if (algorithm === 'EdDSA') return generateKeyPairSync('ed25519');
  return generateKeyPairSync('rsa', { modulusLength: rsaBits });
}

function restoredKeys(pem: string): { privateKey: KeyObject; publicKey: KeyObject } {
  const privateKey = createPrivateKey(pem);
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

function signWith(algorithm: SoftwareAlgorithm, key: KeyObject, data: Buffer): Buffer {
  // WebAuthn ES256 signatures are ASN.1 DER (§6.5.6); EdDSA takes no separate digest.
  if (algorithm === 'ES256') return sign('sha256', data, { key, dsaEncoding: 'der' });
  if (algorithm === 'EdDSA') return sign(null, data, key);
  return sign('sha256', data, key);
}
