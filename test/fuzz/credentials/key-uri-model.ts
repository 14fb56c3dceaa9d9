import fc from 'fast-check';
import { encodeBase32 } from '../../../src/methods/totp/base32.ts';

/**
 * Generated `otpauth://totp/` key URIs built from their parts, what docs/credentials.md ("The
 * key URI") says they hold, and the same URIs with one part broken as the table's "Refused"
 * column describes, with the part the refusal must name.
 */

export interface KeyExpectation {
  issuer: string | undefined;
  accountName: string;
  secret: Uint8Array;
  algorithm: 'SHA1' | 'SHA256' | 'SHA512';
  digits: 6 | 8;
  period: number;
}

export interface GoodUri {
  uri: string;
  key: KeyExpectation;
}
export interface BrokenUri {
  uri: string;
  /** The first word after `body.params.key_uri: ` in the refusal. */
  part: string;
}

const enc = encodeURIComponent;
const randomCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(''));

/** Text a label part may hold: no colon, not blank, no control, format, unassigned or private-use character. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cn}\p{Co}\p{Cs}]/u;
const labelText = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 }).filter((s) => !s.includes(':') && s.trim() !== '' && !UNSAFE.test(s));

const KNOWN = ['secret', 'issuer', 'algorithm', 'digits', 'period'];
const extraName = fc.oneof(fc.constantFrom('image', 'color', 'lock', 'counter'), fc.stringMatching(/^[a-z]{1,8}$/)).filter((name) => !KNOWN.includes(name));
const extra = fc.tuple(extraName, fc.string({ maxLength: 20 })).map(([name, value]) => `${name}=${enc(value)}`);

const parts = fc.record({
  scheme: randomCase('otpauth'),
  type: randomCase('totp'),
  issuer: labelText,
  account: labelText,
  spaces: fc.integer({ min: 0, max: 2 }),
  issuerPlace: fc.constantFrom('prefix', 'parameter', 'both', 'none'),
  colon: fc.constantFrom(':', '%3A', '%3a'),
  secret: fc.uint8Array({ minLength: 10, maxLength: 128, size: 'max' }),
  secretLower: fc.boolean(),
  algorithm: fc.option(fc.constantFrom('SHA1' as const, 'SHA256' as const, 'SHA512' as const)),
  algorithmLower: fc.boolean(),
  digits: fc.option(fc.constantFrom(6 as const, 8 as const)),
  period: fc.option(fc.integer({ min: 1, max: 300 })),
  extras: fc.array(extra, { maxLength: 3 }),
  order: fc.nat(),
});
type Parts = typeof parts extends fc.Arbitrary<infer T> ? T : never;

interface Assembly {
  scheme?: string;
  type?: string;
  label?: string;
  /** Replaces the query parameter of this name (null drops it); extra ones are appended. */
  replace?: Record<string, string | null>;
  append?: string[];
}

function assemble(p: Parts, change: Assembly = {}): string {
  const prefixed = p.issuerPlace === 'prefix' || p.issuerPlace === 'both';
  const label = change.label ?? `${prefixed ? `${enc(p.issuer)}${p.colon}` : ''}${'%20'.repeat(p.spaces)}${enc(p.account)}`;
  const base32 = encodeBase32(p.secret);
  const known: [string, string | null][] = [
    ['secret', p.secretLower ? base32.toLowerCase() : base32],
    ['issuer', p.issuerPlace === 'parameter' || p.issuerPlace === 'both' ? enc(p.issuer) : null],
    ['algorithm', p.algorithm === null ? null : p.algorithmLower ? p.algorithm.toLowerCase() : p.algorithm],
    ['digits', p.digits === null ? null : String(p.digits)],
    ['period', p.period === null ? null : String(p.period)],
  ];
  const query = known
    .map(([name, value]) => [name, change.replace && name in change.replace ? change.replace[name]! : value] as const)
    .filter(([, value]) => value !== null)
    .map(([name, value]) => `${name}=${value}`)
    .concat(p.extras, change.append ?? []);
  // A rotation is enough to put every parameter first or last.
  const rotated = query.map((_, i) => query[(i + p.order) % query.length]!);
  return `${change.scheme ?? p.scheme}://${change.type ?? p.type}/${label}?${rotated.join('&')}`;
}

export const goodUris: fc.Arbitrary<GoodUri> = parts
  .map((p) => ({
    uri: assemble(p),
    key: {
      issuer: p.issuerPlace === 'none' ? undefined : p.issuer,
      accountName: p.account.replace(/^ +/, ''),
      secret: p.secret,
      algorithm: p.algorithm ?? 'SHA1',
      digits: p.digits ?? 6,
      period: p.period ?? 30,
    },
  }))
  .filter(({ key }) => key.accountName.trim() !== '');

const notValid = (valid: (s: string) => boolean) => fc.string({ maxLength: 12 }).filter((s) => !valid(s));
const base32Chars = (length: number) => fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'), minLength: length, maxLength: length });

const badSecret = fc.oneof(
  fc.uint8Array({ minLength: 10, maxLength: 40 }).map((b) => `${encodeBase32(b)}=`),
  fc.tuple(base32Chars(20), fc.constantFrom('0', '1', '8', '9', '-', '%20', '%C3%A9')).map(([s, bad]) => `${s.slice(0, 7)}${bad}${s.slice(7)}`),
  fc.uint8Array({ minLength: 1, maxLength: 9 }).map(encodeBase32),
  fc.uint8Array({ minLength: 129, maxLength: 140 }).map(encodeBase32),
  fc.integer({ min: 2, max: 40 }).chain((groups) => base32Chars(groups * 8 + [1, 3, 6][groups % 3]!)),
  fc.constant(''),
);

/** One part broken, with the word the refusal names. */
const breakages: fc.Arbitrary<[string, (p: Parts) => string]>[] = [
  fc.constantFrom('https', 'otpauth2', 'otp', 'totp').map((scheme) => ['scheme', (p) => assemble(p, { scheme })]),
  fc
    .oneof(
      fc.constant('hotp'),
      fc.stringMatching(/^[a-z0-9]{0,8}$/).filter((t) => t !== 'totp'),
    )
    .map((type) => ['type', (p) => assemble(p, { type })]),
  labelText.map((middle) => ['label', (p) => assemble(p, { label: `${enc(p.issuer)}:${enc(middle)}:${enc(p.account)}` })]),
  labelText.map((other) => ['issuer', (p) => assemble({ ...p, issuerPlace: 'both' }, { replace: { issuer: enc(`${p.issuer}${other}`) } })]),
  badSecret.map((secret) => ['secret', (p) => assemble(p, { replace: { secret: secret === '' ? null : secret } })]),
  notValid((s) => ['SHA1', 'SHA256', 'SHA512'].includes(s.toUpperCase())).map((a) => ['algorithm', (p) => assemble(p, { replace: { algorithm: enc(a) } })]),
  notValid((s) => s === '6' || s === '8').map((d) => ['digits', (p) => assemble(p, { replace: { digits: enc(d) } })]),
  notValid((s) => /^[1-9][0-9]{0,5}$/.test(s) && Number(s) <= 300).map((s) => ['period', (p) => assemble(p, { replace: { period: enc(s) } })]),
  fc
    .constantFrom(['secret', 'GEZDGNBVGY3TQOJQ'], ['digits', '8'], ['period', '60'])
    .map(([name, value]) => [name, (p) => assemble(p, { replace: { [name]: value }, append: [`${name}=${value}`] })]),
  fc.constantFrom('#top', '%', '%G1', ' ', 'é', '"').map((bad) => ['key_uri', (p) => `${assemble(p)}${bad}`]),
  fc.constant(['key_uri', (p) => assemble(p, { append: [`image=${'x'.repeat(2048)}`] })]),
];

export const brokenUris: fc.Arbitrary<BrokenUri> = fc.tuple(parts, fc.oneof(...breakages)).map(([p, [part, make]]) => ({ uri: make(p), part }));
