import { argon2Sync, pbkdf2Sync } from 'node:crypto';
import { createRequire } from 'node:module';
import { type Argon2Inputs, type Argon2Type, argon2Compute } from '../legacy-verification/argon2-reference.ts';
import { cryptBlowfish, type KeySetupMode } from '../legacy-verification/crypt-blowfish.ts';

/** The digests a PBKDF2 hash may name (parse-pbkdf2.ts), each one node's pbkdf2Sync computes. */
export type Pbkdf2Digest = 'sha1' | 'sha256' | 'sha512';

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

/**
 * A copy of `job` whose byte fields own exactly their bytes. A small Buffer is a view on a
 * shared 64 KiB slab, and posting a view copies its whole buffer to the other thread — with
 * whatever other requests (their passwords) left in the slab. Exact copies, transferred, carry
 * only this job's bytes, and the caller's copy does not go with them.
 */
export function detachedJob(job: HashJob): { job: HashJob; transfer: ArrayBuffer[] } {
  const transfer: ArrayBuffer[] = [];
  const own = (bytes: Uint8Array) => {
    const copy = new Uint8Array(bytes);
    transfer.push(copy.buffer);
    return copy;
  };
  switch (job.kind) {
    case 'argon2': {
      const { message, nonce, secret, associatedData, ...sizes } = job.inputs;
      const inputs = {
        ...sizes,
        message: own(message),
        nonce: own(nonce),
        ...(secret ? { secret: own(secret) } : {}),
        ...(associatedData ? { associatedData: own(associatedData) } : {}),
      };
      return { job: { ...job, inputs }, transfer };
    }
    case 'bcrypt':
      return { job: { ...job, password: own(job.password) }, transfer };
    case 'crypt-blowfish':
      return { job: { ...job, password: own(job.password), salt: own(job.salt) }, transfer };
    case 'pbkdf2':
      return { job: { ...job, password: own(job.password), salt: own(job.salt) }, transfer };
  }
}

/** The password bytes of a job, to be cleared once it is done. */
export function passwordOf(job: HashJob): Uint8Array {
  return job.kind === 'argon2' ? job.inputs.message : job.password;
}

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
