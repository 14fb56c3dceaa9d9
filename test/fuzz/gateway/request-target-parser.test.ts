import assert from 'node:assert/strict';
import { isIPv6 } from 'node:net';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { GatewayError } from '../../../src/gateway/request/gateway-error.ts';
import { normalisePath, type PathPolicy, parseHost, parseRequestTarget, sameHost } from '../../../src/gateway/request/request-target.ts';

/** Every path policy an operator can configure. */
const policies: PathPolicy[] = (['reject', 'keep', 'unescape'] as const).flatMap((escapedSlashes) =>
  (['reject', 'keep'] as const).flatMap((semicolons) => [true, false].map((mergeSlashes) => ({ escapedSlashes, semicolons, mergeSlashes }))),
);
const policy = fc.constantFrom(...policies);

/** Pieces that exercise each rule of docs/gateway.md, glued into paths. */
const ATOMS = [
  ...['api', 'API', 'open', 'x', '', '.', '..', '%2e', '%2E', '%2e%2e', '.%2e', '%2e.', '%61pi', '%41', '%7e', '%7E', '~', '-', '_'],
  ...['%2f', '%2F', '%5c', '%5C', '\\', ';', ';x', '..;', '.;', '%3b', '%00', '%0a', '%1f', '%7f', '%20', '%zz', '%', '%4', '%252e', '%c3%a9'],
  ...['?', '?a=/../b', '#', '*', '@', ':', "'", '"', '<', '|', '`', '{', '[', '$', '&', '=', '+', ','],
];
const segment = fc.oneof(
  fc.array(fc.constantFrom(...ATOMS), { maxLength: 3 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary-ascii', maxLength: 4 }),
);
const path = fc.array(segment, { maxLength: 7 }).map((segments) => `/${segments.join('/')}`);
/** Every path and then some: random ASCII, random Unicode, and the structured paths. */
const anyTarget = fc.oneof(
  path,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ maxLength: 40 }).map((s) => `/${s}`),
);

const refusedAs = (code: string, run: () => unknown): boolean => {
  try {
    run();
    return false;
  } catch (error) {
    if (error instanceof GatewayError && error.code === code && error.status === 400) return true;
    throw error;
  }
};

/** What a normalised path must never hold, whatever the policy (docs/gateway.md, "Path"). */
function checkNormalised(out: string, p: PathPolicy): void {
  assert.ok(out.startsWith('/'), out);
  assert.ok(!/#/.test(out), `fragment in ${out}`);
  for (const [encoding, hex = ''] of out.matchAll(/%(.{0,2})/g)) {
    assert.match(hex, /^[0-9A-F]{2}$/, `${encoding} in ${out} is not upper-case %XX`);
    const code = Number.parseInt(hex, 16);
    assert.ok(code >= 0x20 && code !== 0x7f, `encoded control character in ${out}`);
    assert.ok(!/[A-Za-z0-9\-._~]/.test(String.fromCharCode(code)), `encoded unreserved character in ${out}`);
  }
  assert.ok(!out.split('/').some((s) => s === '.' || s === '..'), `dot-segment left in ${out}`);
  if (p.mergeSlashes) assert.ok(!out.includes('//'), `repeated slash in ${out}`);
  if (p.escapedSlashes !== 'keep') assert.ok(!/%2F|%5C|\\/.test(out), `escaped slash in ${out}`);
  if (p.semicolons === 'reject') assert.ok(!out.includes(';'), `; in ${out}`);
}

/**
 * RFC 3986 §5.2.4 with the gateway's one difference (a path that climbs above the root is
 * refused, not clamped), for paths of plain segments and dots: the oracle is the WHATWG URL
 * parser, which resolves dot-segments (and `%2e`) the same way.
 */
function climbsAboveRoot(raw: string): boolean {
  let depth = 0;
  for (const s of raw.replace(/%2e/gi, '.').split('/').slice(1)) {
    if (s === '..') {
      if (depth === 0) return true;
      depth--;
    } else if (s !== '.') depth++;
  }
  return false;
}

describe('Fuzz: request-target parser (pure)', () => {
  it('answers every string with a target or a 400 GATEWAY_BAD_REQUEST_TARGET, never another error', () => {
    fc.assert(
      fc.property(anyTarget, policy, (raw, p) => {
        try {
          const target = parseRequestTarget(raw, p);
          checkNormalised(target.path, p);
        } catch (error) {
          if (!(error instanceof GatewayError) || error.code !== 'GATEWAY_BAD_REQUEST_TARGET' || error.status !== 400) throw error;
        }
      }),
      { numRuns: 10_000 },
    );
  });

  it('is idempotent: a normalised path normalises to itself', () => {
    fc.assert(
      fc.property(path, policy, (raw, p) => {
        let once: string;
        try {
          once = normalisePath(raw, p);
        } catch {
          return;
        }
        assert.equal(normalisePath(once, p), once);
      }),
      { numRuns: 10_000 },
    );
  });

  it('reads a percent-encoded unreserved character as the character itself (RFC 3986 §6.2.2.2)', () => {
    const plain = fc.array(fc.stringMatching(/^[A-Za-z0-9._~-]{1,6}$/), { minLength: 1, maxLength: 5 }).map((s) => `/${s.join('/')}`);
    fc.assert(
      fc.property(plain, fc.nat(), fc.boolean(), policy, (raw, at, lower, p) => {
        const i = 1 + (at % (raw.length - 1 || 1));
        const char = raw[i]!;
        if (char === '/') return;
        const hex = char.charCodeAt(0).toString(16).padStart(2, '0');
        const encoded = `${raw.slice(0, i)}%${lower ? hex : hex.toUpperCase()}${raw.slice(i + 1)}`;
        const read = (text: string) => {
          try {
            return normalisePath(text, p);
          } catch (error) {
            return (error as GatewayError).code;
          }
        };
        assert.equal(read(encoded), read(raw), `${encoded} and ${raw} are one path`);
      }),
      { numRuns: 2000 },
    );
  });

  it('removes dot-segments as the WHATWG URL parser does, and refuses exactly the paths that climb above the root', () => {
    const dotted = fc.array(fc.constantFrom('a', 'b', '.', '..', '%2e', '%2E%2e', ''), { maxLength: 8 }).map((s) => `/${s.join('/')}`);
    const keepSlashes: PathPolicy = { escapedSlashes: 'reject', semicolons: 'reject', mergeSlashes: false };
    fc.assert(
      fc.property(dotted, (raw) => {
        if (climbsAboveRoot(raw))
          assert.ok(
            refusedAs('GATEWAY_BAD_REQUEST_TARGET', () => normalisePath(raw, keepSlashes)),
            raw,
          );
        else assert.equal(normalisePath(raw, keepSlashes), new URL(`http://h${raw}`).pathname, raw);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps the query exactly as sent and never lets it change the path', () => {
    // What a request line can carry (visible ASCII); the bytes it cannot are refused below.
    const visible = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(path, fc.string({ unit: visible, maxLength: 20 }), (raw, query) => {
        fc.pre(!raw.includes('?') && !raw.includes('#') && !query.includes('#'));
        let alone: string;
        try {
          alone = normalisePath(raw, policies[0]!);
        } catch {
          return;
        }
        if (!/^[\x21-\x7e]*$/.test(raw)) return assert.ok(refusedAs('GATEWAY_BAD_REQUEST_TARGET', () => parseRequestTarget(`${raw}?${query}`, policies[0]!)));
        assert.deepEqual(parseRequestTarget(`${raw}?${query}`, policies[0]!), { path: alone, query: `?${query}` });
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses a target whose query holds a space, a control or a non-ASCII character, as no request line carries one (a forward-auth X-Forwarded-Uri could)', () => {
    const invisible = fc
      .oneof(fc.integer({ min: 0, max: 0x20 }), fc.constant(0x7f), fc.integer({ min: 0x80, max: 0xffff }))
      .map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 10 }), invisible, fc.string({ unit: 'binary-ascii', maxLength: 10 }), (before, bad, after) => {
        fc.pre(!before.includes('#'));
        assert.ok(refusedAs('GATEWAY_BAD_REQUEST_TARGET', () => parseRequestTarget(`/x?${before}${bad}${after}`, policies[0]!)));
      }),
      { numRuns: 1000 },
    );
  });

  it('reads an absolute-form target as its path, with the authority apart; user information is refused', () => {
    const authority = fc.oneof(fc.domain(), fc.constantFrom('', 'user@h', 'h:80', '[::1]', 'a..b', 'h,x', 'H.example.'));
    fc.assert(
      fc.property(fc.constantFrom('http', 'HTTP', 'https', 'Https'), authority, path, (scheme, host, rest) => {
        // Node's parser delivers only visible ASCII in a request-target (request-targets.test.ts).
        fc.pre(/^[\x21-\x7e]*$/.test(rest));
        const absolute = `${scheme}://${host}${rest}`;
        let origin: ReturnType<typeof parseRequestTarget> | string;
        try {
          origin = parseRequestTarget(rest, policies[0]!);
        } catch (error) {
          origin = (error as GatewayError).code;
        }
        if (host === '' || host.includes('@')) return void assert.ok(refusedAs('GATEWAY_BAD_REQUEST_TARGET', () => parseRequestTarget(absolute, policies[0]!)));
        if (typeof origin === 'string') return void assert.ok(refusedAs(origin, () => parseRequestTarget(absolute, policies[0]!)));
        assert.deepEqual(parseRequestTarget(absolute, policies[0]!), { ...origin, authority: host });
      }),
      { numRuns: 2000 },
    );
  });
});

describe('Fuzz: Host parser (pure)', () => {
  it('answers every string with a host or a 400 GATEWAY_BAD_HOST; an accepted host cannot carry a Forwarded parameter', () => {
    const hostish = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc.string({ unit: fc.constantFrom('a', 'B', '0', '.', '-', '_', ':', '[', ']', ',', ';', '=', '"', '%', ' ', '9'), maxLength: 20 }),
    );
    fc.assert(
      fc.property(hostish, (value) => {
        try {
          const { host, port } = parseHost(value);
          assert.match(host, /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]*)$/, `host ${host} from ${value}`);
          assert.ok(!host.endsWith('.') && !host.includes('..'), host);
          if (host.startsWith('[')) assert.ok(isIPv6(host.slice(1, -1)), `${host} is no IPv6 address`);
          if (port !== undefined) assert.ok(/^\d{1,5}$/.test(port) && Number(port) <= 65_535, port);
        } catch (error) {
          if (!(error instanceof GatewayError) || error.code !== 'GATEWAY_BAD_HOST' || error.status !== 400) throw error;
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('accepts every DNS name and port, and compares hosts without case, trailing dot or default port', () => {
    fc.assert(
      fc.property(fc.domain(), fc.option(fc.integer({ min: 0, max: 65_535 })), fc.boolean(), (name, port, dot) => {
        const written = `${name.toUpperCase()}${dot ? '.' : ''}${port === null ? '' : `:${port}`}`;
        const read = parseHost(written);
        assert.deepEqual(read, { host: name.toLowerCase(), port: port === null ? undefined : String(port) });
        assert.ok(sameHost(read, parseHost(`${name}${port === null ? '' : `:${port}`}`), '80'));
        assert.equal(sameHost(read, parseHost(name), String(port ?? 80)), true);
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts every IPv6 literal in brackets, with or without a port', () => {
    fc.assert(
      fc.property(fc.ipV6(), fc.option(fc.integer({ min: 0, max: 65_535 })), (address, port) => {
        const read = parseHost(`[${address.toUpperCase()}]${port === null ? '' : `:${port}`}`);
        assert.deepEqual(read, { host: `[${address.toLowerCase()}]`, port: port === null ? undefined : String(port) });
      }),
      { numRuns: 1000 },
    );
  });

  // Found by this file: any run of hex digits, colons and dots in brackets passed as an IP literal.
  for (const value of ['[..]', '[:::]', '[.]', '[1.2.3.4]', '[::1]:99999']) {
    it(`regression: ${value} is no host`, () => assert.ok(refusedAs('GATEWAY_BAD_HOST', () => parseHost(value))));
  }

  it('answers long hostile inputs in linear time (no catastrophic backtracking)', () => {
    fc.assert(
      fc.property(fc.constantFrom('a.', 'a', '-', '[:', '1'), fc.constantFrom('!', ':x', '..', ']'), (unit, tail) => {
        const started = performance.now();
        try {
          parseHost(`${unit.repeat(20_000)}${tail}`);
        } catch {}
        try {
          parseRequestTarget(`/${unit.repeat(20_000)}${tail}`, policies[0]!);
        } catch {}
        assert.ok(performance.now() - started < 500, `${unit}×20000${tail} took ${performance.now() - started} ms`);
      }),
      { numRuns: 20 },
    );
  });
});
