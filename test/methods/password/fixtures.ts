import { readFileSync } from 'node:fs';

/** One independent test vector: a hash made by another implementation and its password. */
export interface PasswordVector {
  source: string;
  hash: string;
  password: Buffer;
}

interface FixtureFile {
  source: string;
  vectors: Array<{ hash: string; password?: string; password_hex?: string; command?: string }>;
}

export const VECTOR_FILES = [
  'openwall-crypt-blowfish.json',
  'htpasswd-bcrypt.json',
  'argon2-cli.json',
  'rfc6070-pbkdf2-sha1.json',
  'rfc7914-pbkdf2-sha256.json',
  'python-pbkdf2-sha512.json',
] as const;

export function readFixture<T = FixtureFile>(name: string): T {
  return JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8')) as T;
}

export function vectorsOf(name: string): PasswordVector[] {
  return readFixture(name).vectors.map((vector) => ({
    source: `${name}: ${vector.command ?? vector.hash}`,
    hash: vector.hash,
    password: vector.password_hex === undefined ? Buffer.from(vector.password ?? '', 'utf8') : Buffer.from(vector.password_hex, 'hex'),
  }));
}
