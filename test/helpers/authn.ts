import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { HashWorkPool, hashPassword } from '../../src/methods/password/index.ts';
import type { HashJob } from '../../src/methods/password/threads/hash-job.ts';
import { encodeBase32 } from '../../src/methods/totp/index.ts';
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

/**
 * How many attempts GET /metrics counts as not audited (named no one, or refused unjudged) for
 * these labels; 0 before the first. Metrics are per service process, not per organisation.
 */
export async function unauditedAttempts(t: TestService, labels: { method: string; outcome: string; reason: string }): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  const series = `tessera_authn_attempts_unaudited_total{method="${labels.method}",outcome="${labels.outcome}",reason="${labels.reason}"}`;
  const line = text.split('\n').find((one) => one.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

export interface TotpVector {
  algorithm: 'SHA1' | 'SHA256' | 'SHA512';
  digits: 6 | 8;
  period: number;
  unix_seconds: number;
  key_hex: string;
  code: string;
}

/** The oathtool vectors of test/methods/totp/fixtures/ (each records the command that made it). */
export function oathtoolVectors(): TotpVector[] {
  const url = new URL('../methods/totp/fixtures/oathtool-vectors.json', import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).vectors;
}

/** A key URI for the vector's key and parameters, as an authenticator app would be given. */
export function keyUriOf(vector: Pick<TotpVector, 'algorithm' | 'digits' | 'period' | 'key_hex'>): string {
  const secret = encodeBase32(Buffer.from(vector.key_hex, 'hex'));
  return `otpauth://totp/Example:lin%40example.com?secret=${secret}&issuer=Example&algorithm=${vector.algorithm}&digits=${vector.digits}&period=${vector.period}`;
}

/** A person who signs in with two factors: a password, and a TOTP credential whose recovery codes the tests spend one per sign-in. */
export interface TwoFactorPerson {
  id: string;
  email: string;
  password: string;
  /** The TOTP credential's key URI, for a code of the clock. */
  keyUri: string;
  /** Unused recovery codes; signInWithTwoFactors takes the first. */
  recoveryCodes: string[];
}

/** A TOTP key URI with a fresh random key, and `count` recovery codes, ready to import. */
export function totpImport(count = 20): { keyUri: string; recoveryCodes: string[]; params: Record<string, unknown> } {
  const keyUri = `otpauth://totp/Tessera:test?secret=${encodeBase32(randomBytes(20))}&issuer=Tessera`;
  const recoveryCodes = Array.from({ length: count }, () => `rc-${randomBytes(8).toString('hex')}`);
  return { keyUri, recoveryCodes, params: { key_uri: keyUri, recovery_codes_total: count, unused_recovery_codes: recoveryCodes } };
}

/** Gives an existing person with a password handle a TOTP credential (imported with an admin key): their second factor. */
export async function addTotp(t: TestService, org: TestOrg, personId: string): Promise<{ keyUri: string; recoveryCodes: string[]; credentialId: string }> {
  const totp = totpImport();
  const credentialId = await importCredential(t, org, personId, 'totp', totp.params);
  return { keyUri: totp.keyUri, recoveryCodes: totp.recoveryCodes, credentialId };
}

/** A person of `org` with an email handle, a password and a TOTP credential, holding `roles` (none by default). */
export async function twoFactorPerson(t: TestService, org: TestOrg, body: Record<string, unknown> = {}): Promise<TwoFactorPerson> {
  const email = `p${Math.random().toString(36).slice(2)}@example.com`;
  const created = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: email }], ...body } });
  if (created.status !== 201) throw new Error(`person creation failed: ${JSON.stringify(created.body)}`);
  const id = created.body.result.id as string;
  const password = `pw-${randomBytes(6).toString('hex')}-long enough`;
  await importCredential(t, org, id, 'password', { password_hash: await policyHash(password) });
  const { keyUri, recoveryCodes } = await addTotp(t, org, id);
  return { id, email, password, keyUri, recoveryCodes };
}

/** The second step of a password login: the ticket from POST /authn/password, completed with `code` at POST /authn/totp. */
export async function completeWithCode(t: TestService, org: TestOrg, ticket: string, code: string): Promise<Response> {
  return t.call('POST', '/authn/totp', { as: { 'service-orgid': org.orgId }, body: { second_factor_ticket: ticket, code } });
}

/** Signs the person in through the API with their password and a recovery code: a person JWT with amr pwd, otp and mfa. */
export async function signInWithTwoFactors(t: TestService, org: TestOrg, person: TwoFactorPerson): Promise<string> {
  const first = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: person.password });
  if (first.status !== 200 || first.body.result.second_factor_required !== true) throw new Error(`password step failed: ${JSON.stringify(first.body)}`);
  const code = person.recoveryCodes.shift();
  if (!code) throw new Error('the person has no recovery codes left');
  const second = await completeWithCode(t, org, first.body.result.second_factor_ticket, code);
  if (second.status !== 200) throw new Error(`second step failed: ${JSON.stringify(second.body)}`);
  return second.body.result.token;
}

/** A person with an email handle and a password only. */
export interface PasswordPerson {
  id: string;
  email: string;
  password: string;
}

/** A person of `org` with an email handle and a password (no second factor), holding what `body` gives (roles, console). */
export async function passwordPerson(t: TestService, org: TestOrg, body: Record<string, unknown> = {}): Promise<PasswordPerson> {
  const email = `p${Math.random().toString(36).slice(2)}@example.com`;
  const created = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: email }], ...body } });
  if (created.status !== 201) throw new Error(`person creation failed: ${JSON.stringify(created.body)}`);
  const password = `pw-${randomBytes(6).toString('hex')}-long enough`;
  await importCredential(t, org, created.body.result.id, 'password', { password_hash: await policyHash(password) });
  return { id: created.body.result.id, email, password };
}

/** The person JWT of a password login (amr pwd): for a person without a second factor, who gets one at once. */
export async function passwordJwt(t: TestService, org: TestOrg, person: PasswordPerson): Promise<string> {
  const answer = await login(t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: person.password });
  if (answer.status !== 200 || typeof answer.body.result.token !== 'string') throw new Error(`password login gave no token: ${JSON.stringify(answer.body)}`);
  return answer.body.result.token;
}

/**
 * Gives the existing person `personId` (whose email handle is `email`) a password and a TOTP
 * credential, and signs them in with both: a person JWT with mfa, as the helpdesk door and factor
 * management need (design §5). For verifiers made by tests that once used mint-token.
 */
export async function signedInWithTwoFactors(t: TestService, org: TestOrg, personId: string, email: string): Promise<string> {
  const password = `pw-${randomBytes(6).toString('hex')}-long enough`;
  await importCredential(t, org, personId, 'password', { password_hash: await policyHash(password) });
  const { keyUri, recoveryCodes } = await addTotp(t, org, personId);
  return signInWithTwoFactors(t, org, { id: personId, email, password, keyUri, recoveryCodes });
}
