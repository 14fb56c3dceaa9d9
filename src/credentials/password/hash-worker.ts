import { parentPort, workerData } from 'node:worker_threads';
import { type Argon2Inputs, type Argon2Type, argon2Compute } from './argon2-reference.ts';
import { cryptBlowfish, type KeySetupMode } from './crypt-blowfish.ts';

/** The hash computations done in JavaScript, each in a worker of its own (run-hash-worker.ts). */
export type HashWorkerJob =
  | { kind: 'crypt-blowfish'; password: Uint8Array; salt: Uint8Array; cost: number; mode: KeySetupMode }
  | { kind: 'argon2'; type: Argon2Type; version: 0x10 | 0x13; inputs: Argon2Inputs };

const job = workerData as HashWorkerJob;
parentPort!.postMessage(job.kind === 'argon2' ? argon2Compute(job.type, job.version, job.inputs) : cryptBlowfish(job.password, job.salt, job.cost, job.mode));
