import { readFileSync } from 'node:fs';
import type { HashJob } from '../../src/credentials/password/hash-job.ts';
import { HashWorkPool, hashPassword } from '../../src/credentials/password/index.ts';
import { encodeBase32 } from '../../src/credentials/totp/index.ts';
import { createPerson } from './oauth.ts';
import type { Response, TestOrg, TestService } from './service.ts';

export interface LoginPerson {
  id: string;
  email: string;
}

/** A person of `org` with an email handle, for logging in. */
export async function loginPerson(t: TestService, org: TestOrg): Promise<LoginPerson> {
  const email = `p${Math.random().toString(36).slice(2)}@example.com`;
  return { id: await createPerson(t, org, email), email };
}

/** Imports a credential through the API (admin key) and returns its id. */
export async function importCredential(t: TestService, org: TestOrg, personId: string, type: string, params: Record<string, unknown>): Promise<string> {
  const response = await t.call('POST', `/persons/${personId}/credentials`, { as: org, body: { type, params } });
  if (response.status !== 201) throw new Error(`credential import failed: ${JSON.stringify(response.body)}`);
  return response.body.result.id;
}

/** The helpers' own hash threads, shared by a test file's calls. */
const helperPool = new HashWorkPool({ concurrency: 1 });

/** An argon2id hash at the OWASP policy: one that needs no upgrade. */
export function policyHash(password: string): Promise<string> {
  return hashPassword(password, helperPool);
}

/** Hash work of about a second on this machine, to hold a pool's slot while a test looks at the queue. */
export function slowHashJob(): Extract<HashJob, { kind: 'argon2' }> {
  return {
    kind: 'argon2',
    type: 'argon2id',
    version: 0x13,
    inputs: { message: Buffer.from('hold'), nonce: Buffer.alloc(16), memory: 65536, passes: 10, parallelism: 1, tagLength: 32 },
  };
}

/** A login call as a person makes it: Service-OrgID only, no API key. */
export function login(t: TestService, org: TestOrg, path: '/authn/password' | '/authn/totp', body: unknown): Promise<Response> {
  return t.call('POST', path, { as: { 'service-orgid': org.orgId }, body });
}

/** The `authn.attempt` events of the organisation, oldest first, as `data`. */
export async function attemptEvents(t: TestService, org: TestOrg): Promise<Record<string, unknown>[]> {
  const response = await t.call('GET', '/audit/events?type=authn.attempt&limit=100', { as: org });
  return (response.body.result as { data: Record<string, unknown> }[]).map((event) => event.data);
}

export interface TotpVector {
  algorithm: 'SHA1' | 'SHA256' | 'SHA512';
  digits: 6 | 8;
  period: number;
  unix_seconds: number;
  key_hex: string;
  code: string;
}

/** The oathtool vectors of test/credentials/totp/fixtures/ (each records the command that made it). */
export function oathtoolVectors(): TotpVector[] {
  const url = new URL('../credentials/totp/fixtures/oathtool-vectors.json', import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).vectors;
}

/** A key URI for the vector's key and parameters, as an authenticator app would be given. */
export function keyUriOf(vector: Pick<TotpVector, 'algorithm' | 'digits' | 'period' | 'key_hex'>): string {
  const secret = encodeBase32(Buffer.from(vector.key_hex, 'hex'));
  return `otpauth://totp/Example:lin%40example.com?secret=${secret}&issuer=Example&algorithm=${vector.algorithm}&digits=${vector.digits}&period=${vector.period}`;
}
