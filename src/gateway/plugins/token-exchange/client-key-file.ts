import { createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync, type Stats, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { SingleFlightOne } from '../../../concurrency/single-flight.ts';

/** The assertion algorithms the service takes (design §4) that a key in a PEM file makes. */
export type ClientKeyAlgorithm = 'ES256' | 'EdDSA' | 'RS256';

export interface ClientKey {
  key: KeyObject;
  alg: ClientKeyAlgorithm;
}

/** A key file is a few kilobytes; anything much larger is not one, and is not read. */
const MAX_KEY_FILE_BYTES = 65_536;
const PKCS8_BLOCK = /-----BEGIN PRIVATE KEY-----[^-]+-----END PRIVATE KEY-----/g;
/** The service's bounds for registered RSA keys (src/oauth/client-keys.ts): a key it would refuse is refused here first. */
const RSA_BITS = { min: 2048, max: 4096 } as const;
const MAX_RSA_EXPONENT = 2n ** 32n;
export const KEY_TYPE_RULE = `must hold an EC P-256 (ES256), Ed25519 (EdDSA) or RSA ${RSA_BITS.min} to ${RSA_BITS.max} bit (RS256) private key`;

/** Why a key file cannot be used, in words that never quote the file. */
export class ClientKeyFileError extends Error {
  override readonly name = 'ClientKeyFileError';
}

/** The key a PEM PKCS#8 text holds and the algorithm it signs with; throws the rule the text breaks. */
export function clientKeyOf(text: string): ClientKey {
  if (text.includes('-----BEGIN ENCRYPTED PRIVATE KEY-----'))
    throw new ClientKeyFileError('holds an encrypted key; the gateway reads it unencrypted (PEM PKCS#8), so protect the file instead');
  const blocks = text.match(PKCS8_BLOCK) ?? [];
  if (blocks.length !== 1)
    throw new ClientKeyFileError(
      blocks.length === 0
        ? 'must hold a PEM PKCS#8 private key (-----BEGIN PRIVATE KEY-----); openssl pkcs8 -topk8 -nocrypt converts other formats'
        : 'must hold one private key, not several',
    );
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: blocks[0]!, format: 'pem' });
  } catch {
    throw new ClientKeyFileError('holds a PEM block that is no valid PKCS#8 private key');
  }
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'ec' && details.namedCurve === 'prime256v1') return { key, alg: 'ES256' };
  if (key.asymmetricKeyType === 'ed25519') return { key, alg: 'EdDSA' };
  if (key.asymmetricKeyType === 'rsa') {
    const bits = details.modulusLength ?? 0;
    if (bits >= RSA_BITS.min && bits <= RSA_BITS.max && (details.publicExponent ?? MAX_RSA_EXPONENT) < MAX_RSA_EXPONENT) return { key, alg: 'RS256' };
  }
  throw new ClientKeyFileError(KEY_TYPE_RULE);
}

/** What changes when the file is written or replaced (a rename gives a new inode). */
const versionOf = (info: Stats) => `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
const unreadable = (error: unknown) => new ClientKeyFileError(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'})`);
const tooLarge = () => new ClientKeyFileError(`is larger than ${MAX_KEY_FILE_BYTES / 1024} KiB, which no key file is`);

/** Reads and checks the file now; start-up's check, whose ClientKeyFileError becomes a configuration error. */
export function readClientKeyFile(path: string): ClientKey & { version: string } {
  let info: Stats;
  let text: string;
  try {
    info = statSync(path);
    if (info.size > MAX_KEY_FILE_BYTES) throw tooLarge();
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw error instanceof ClientKeyFileError ? error : unreadable(error);
  }
  return { ...clientKeyOf(text), version: versionOf(info) };
}

/**
 * oauth_client_private_key_file: the key, read again whenever the file has changed (its inode,
 * size or times), looked at on each use: a use is a call to the token endpoint, which costs far
 * more than a stat. A change that cannot be used (half written, another key type, gone) keeps
 * the last good key and is reported once, without any of the file's content.
 */
export class ClientKeyFile {
  readonly path: string;
  readonly #reportFailure: (reason: string) => void;
  #key: ClientKey;
  #version: string;
  /** Concurrent calls share one look (and one read): two overlapping reads could finish out of order and leave the older key in use. */
  readonly #looking = new SingleFlightOne<ClientKey>();

  constructor(path: string, reportFailure: (reason: string) => void = () => {}) {
    this.path = path;
    this.#reportFailure = reportFailure;
    const { version, ...key } = readClientKeyFile(path);
    this.#key = key;
    this.#version = version;
  }

  current(): Promise<ClientKey> {
    return this.#looking.run(() => this.#look());
  }

  async #look(): Promise<ClientKey> {
    let info: Stats | undefined;
    let version: string;
    try {
      info = await stat(this.path);
      version = versionOf(info);
    } catch (error) {
      version = unreadable(error).message;
    }
    // Each state of the file is looked into, and reported, once: not on every call while it stays so.
    if (version === this.#version) return this.#key;
    this.#version = version;
    try {
      if (!info) throw new ClientKeyFileError(version);
      if (info.size > MAX_KEY_FILE_BYTES) throw tooLarge();
      this.#key = clientKeyOf(await readFile(this.path, 'utf8'));
    } catch (error) {
      this.#reportFailure((error instanceof ClientKeyFileError ? error : unreadable(error)).message);
    }
    return this.#key;
  }
}
