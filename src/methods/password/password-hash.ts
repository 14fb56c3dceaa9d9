import type { Pbkdf2Digest } from './threads/hash-job.ts';

/** What an imported password hash says, once parsed (parse-password-hash.ts). */

export type Argon2Function = 'argon2i' | 'argon2id';
/** 0x10 is Argon2 1.0 (PHC strings without `v=`), 0x13 is 1.3 (RFC 9106). */
export type Argon2Version = 0x10 | 0x13;
export type BcryptVersion = '2' | '2a' | '2b' | '2x' | '2y';

export interface Argon2Hash {
  function: Argon2Function;
  version: Argon2Version;
  memoryKiB: number;
  passes: number;
  parallelism: number;
  salt: Buffer;
  hash: Buffer;
}

export interface BcryptHash {
  function: 'bcrypt';
  version: BcryptVersion;
  /** log2 of the rounds, 4–31. */
  cost: number;
  /** 16 bytes. */
  salt: Buffer;
  /** 23 bytes: bcrypt keeps 23 of its 24 output bytes. */
  hash: Buffer;
}

export interface Pbkdf2Hash {
  function: 'pbkdf2';
  version: Pbkdf2Digest;
  iterations: number;
  keyLength: number;
  salt: Buffer;
  hash: Buffer;
}

export type PasswordHash = Argon2Hash | BcryptHash | Pbkdf2Hash;

/** The field every refusal names (CredentialType.prepare's contract). */
export const PASSWORD_HASH_FIELD = 'body.params.password_hash';

/** Said in every refusal of an unknown or malformed format, so the caller knows what to send. */
export const ACCEPTED_FUNCTIONS =
  'accepted functions: argon2i and argon2id (PHC strings), bcrypt ($2$, $2a$, $2b$, $2x$, $2y$), pbkdf2 ($pbkdf2-<sha1|sha256|sha512>$i=<iterations>,l=<key length>$<salt>$<hash>)';
