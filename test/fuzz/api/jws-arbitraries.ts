import { type KeyObject, sign } from 'node:crypto';
import fc from 'fast-check';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value) ?? 'null').toString('base64url');

/**
 * A compact JWS over any header and payload JSON (objects or not), signed ES256 with `key`:
 * the signature holds, so what a verifier refuses is the header or the claims themselves.
 */
export function signCompact(key: KeyObject, header: unknown, payload: unknown): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

/** A change to a JSON object: a member removed, or set to the value given. */
export type Change = { name: string; remove: true } | { name: string; remove?: false; value: unknown };

export function applyChanges(base: Record<string, unknown>, changes: readonly Change[]): Record<string, unknown> {
  const out = { ...base };
  for (const change of changes) {
    if (change.remove) delete out[change.name];
    else out[change.name] = change.value;
  }
  return out;
}

/** Numeric dates as a forger might write them: far past and future, fractions, strings, exponents. */
export function numericDates(now: number): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.constantFrom(0, -1, 1e308, -1e308, now, now - 6, now + 6, now + 61, now + 3600, now - 3600, now + 0.5, `${now + 600}`, null, true),
    fc.integer({ min: now - 100_000, max: now + 100_000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
  );
}

/** `act` chains: well formed or not, up to past the depth limit (10). */
export const actClaims: fc.Arbitrary<unknown> = fc.letrec<{ act: unknown }>((tie) => ({
  act: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ sub: fc.oneof(fc.constantFrom('cli_x', 'spiffe://example.org/a', ''), fc.jsonValue({ maxDepth: 1 })) }, { requiredKeys: [] }),
    fc.record({ sub: fc.constant('per_a'), act: tie('act') }),
    fc.record({ sub: fc.constant('per_a'), act: tie('act'), extra: fc.jsonValue({ maxDepth: 1 }) }),
  ),
})).act;

/** Ways to break a compact JWS without re-signing it: its segments, its encoding, its signature. */
/**
 * Whether `sent` says something other than `token`. The last character of a base64url segment
 * carries unused low bits, so some one-character changes decode to the very same bytes: such a
 * token is the same token spelled another way, and accepting it is right.
 */
export function isDamaged(sent: string, token: string): boolean {
  const a = sent.split('.');
  const b = token.split('.');
  if (a.length !== 3 || b.length !== 3) return true;
  return a.some((part, i) => !/^[A-Za-z0-9_-]+$/.test(part) || !Buffer.from(part, 'base64url').equals(Buffer.from(b[i]!, 'base64url')));
}

export function structuralDamage(token: string): fc.Arbitrary<string> {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  const flip = (s: string, at: number) => `${s.slice(0, at)}${s[at] === 'A' ? 'B' : 'A'}${s.slice(at + 1)}`;
  return fc.oneof(
    fc.constantFrom(
      `${header}.${payload}`,
      `${header}.${payload}.`,
      `${header}.${payload}.${signature}.`,
      `${header}.${payload}.${signature}=`,
      `${header}=.${payload}.${signature}`,
      ` ${token}`,
      `${token}\n`,
      `${header}.${payload}.${signature.slice(0, -2)}`,
      `${header}.${payload}.${Buffer.from(signature, 'base64url').toString('base64')}`,
      `${header}..${signature}`,
      `..`,
      `eyJ.eyJ.eyJ`,
      `${header}.${b64('not an object')}.${signature}`,
      `${header}.${payload}.${signature}${'A'.repeat(8_200)}`,
    ),
    fc.nat({ max: signature.length - 1 }).map((at) => `${header}.${payload}.${flip(signature, at)}`),
    fc.nat({ max: payload.length - 1 }).map((at) => `${header}.${flip(payload, at)}.${signature}`),
    fc.uint8Array({ minLength: 64, maxLength: 64 }).map((bytes) => `${header}.${payload}.${Buffer.from(bytes).toString('base64url')}`),
    fc.string({ unit: fc.constantFrom(...'eyJAZaz09-_.=+/ '), maxLength: 120 }),
    fc.string({ unit: 'binary', maxLength: 60 }),
  );
}

/** Header members set to what a forger might try: other algorithms, foreign kids, `crit`, key URLs. */
export function headerChanges(kid: string, typs: readonly string[]): fc.Arbitrary<Change[]> {
  const change: fc.Arbitrary<Change> = fc.oneof(
    fc.record({ name: fc.constantFrom('alg', 'kid', 'typ'), remove: fc.constant(true as const) }),
    fc.record({ name: fc.constant('alg'), value: fc.constantFrom('none', 'HS256', 'ES384', 'RS256', 'PS256', 'es256', 'ES256 ', '', null, 1, ['ES256']) }),
    fc.record({ name: fc.constant('kid'), value: fc.constantFrom('unknown', '', `${kid} `, kid.toUpperCase(), 1, null, [kid], '../../etc/passwd') }),
    fc.record({
      name: fc.constant('typ'),
      value: fc.oneof(fc.constantFrom(...typs, 'JWT', 'at+JWT', 'application/at+jwt', 'JOSE', '', 1, null), fc.string({ maxLength: 12 })),
    }),
    fc.record({ name: fc.constantFrom('crit', 'b64', 'jku', 'jwk', 'x5u', 'x5c', 'cty', 'zip', 'x'), value: fc.jsonValue({ maxDepth: 1 }) }),
  );
  return fc.array(change, { minLength: 1, maxLength: 3 });
}
