import { argon2Sync, pbkdf2Sync } from 'node:crypto';
import { createRequire } from 'node:module';
import { type Argon2Inputs, type Argon2Type, argon2Compute } from './argon2-reference.ts';
import { cryptBlowfish, type KeySetupMode } from './crypt-blowfish.ts';
import type { Pbkdf2Digest } from './password-hash.ts';

/** The `bcrypt` package ships no types; this is the one call used, on a hash thread. */
const bcrypt = createRequire(import.meta.url)('bcrypt') as { hashSync(data: Buffer, salt: string): string };

/**
 * One piece of password-hash work, as plain data so that it can cross to a hash thread
 * (hash-threads.ts). Each computes bytes; the caller compares them in constant time.
 */
export type HashJob =
  /** Argon2 1.3 by OpenSSL (crypto.argon2Sync); 1.0, which OpenSSL lacks, by the reference transcription. */
  | { kind: 'argon2'; type: Argon2Type; version: 0x10 | 0x13; inputs: Argon2Inputs }
  /** The `bcrypt` package (OpenBSD's code): the whole hash string for `password` under `settings` ($2b$NN$salt). */
  | { kind: 'bcrypt'; password: Uint8Array; settings: string }
  /** crypt_blowfish's key setup with its 8-bit quirks, in JavaScript: the 23 hash bytes. */
  | { kind: 'crypt-blowfish'; password: Uint8Array; salt: Uint8Array; cost: number; mode: KeySetupMode }
  | { kind: 'pbkdf2'; digest: Pbkdf2Digest; password: Uint8Array; salt: Uint8Array; iterations: number; keyLength: number };

/** Does the work of `job` on the calling thread: seconds at the cost ceilings, so only on a hash thread. */
export function computeHashJob(job: HashJob): Uint8Array {
  switch (job.kind) {
    case 'argon2':
      return job.version === 0x13 ? argon2Sync(job.type, job.inputs) : argon2Compute(job.type, job.version, job.inputs);
    case 'bcrypt':
      return Buffer.from(bcrypt.hashSync(Buffer.from(job.password), job.settings), 'latin1');
    case 'crypt-blowfish':
      return cryptBlowfish(job.password, job.salt, job.cost, job.mode);
    case 'pbkdf2':
      return pbkdf2Sync(job.password, job.salt, job.iterations, job.keyLength, job.digest);
  }
}
