import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { base32Problem, decodeBase32, encodeBase32 } from '../../../src/methods/totp/base32.ts';
import { KEY_URI_FIELD, parseKeyUri } from '../../../src/methods/totp/key-uri.ts';
import { recoveryCodeProblem } from '../../../src/methods/totp/recovery-codes.ts';
import { backends } from '../../helpers/backends.ts';
import { assertRefusedNaming, credentialCount, type FuzzTarget, fuzzTarget, httpRuns, mutatedString, parsedOrRefused, timed } from './fuzz-support.ts';
import { brokenUris, goodUris } from './key-uri-model.ts';

const parse = (uri: string) => parsedOrRefused(KEY_URI_FIELD, () => parseKeyUri(uri));
const SEED_URI =
  'otpauth://totp/ACME%20Corp:alice%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=ACME%20Corp&algorithm=SHA256&digits=8&period=60';
const URI_PIECES = [
  'otpauth',
  '://',
  'totp',
  '/',
  ':',
  '%3A',
  '?',
  '&',
  '=',
  'secret',
  'JBSWY3DPEHPK3PXP',
  'issuer',
  'digits',
  'period',
  'algorithm',
  '%',
  '#',
];
const uriLike = fc.array(fc.oneof(fc.constantFrom(...URI_PIECES), fc.string({ maxLength: 3 })), { maxLength: 16 }).map((pieces) => pieces.join(''));
const anyUri = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  uriLike,
  mutatedString(SEED_URI),
  goodUris.chain(({ uri }) => mutatedString(uri)),
);

/** Codes as long hyphenated (sometimes spaced) groups, ending well or badly: what makes a regular expression backtrack. */
const separated = fc
  .tuple(
    fc.string({ unit: fc.constantFrom('-', 'a', '-', '7'), maxLength: 64, size: 'max' }),
    fc.constantFrom('', ' ', '  '),
    fc.constantFrom('', 'a', ' ', '\u0000', 'é', '-'),
  )
  .map(([body, space, end]) => {
    const middle = Math.floor(body.length / 2);
    return body.slice(0, middle) + space + body.slice(middle) + end;
  });
const codeLike = fc.oneof(separated, fc.string({ unit: 'binary-ascii', maxLength: 70 }));

/** docs/credentials.md: printable ASCII, groups split by single spaces (hyphens are printable), 8+ characters besides spaces and hyphens. */
function codeIsValid(code: string): boolean {
  return code.length <= 64 && /^[\x20-\x7e]+$/.test(code) && !/^ | $| {2}/.test(code) && code.replace(/[ -]/g, '').length >= 8;
}

describe('Key URI parsing, fuzzed', () => {
  it('reads any text as a key or refuses it with the 400 naming body.params.key_uri, quickly', () => {
    fc.assert(
      fc.property(anyUri, (uri) => void parse(uri)),
      { numRuns: 5000 },
    );
  });

  it('reads a key URI built from its parts back to those parts, whatever the case, encoding and order', () => {
    fc.assert(
      fc.property(goodUris, ({ uri, key }) => {
        const parsed = parse(uri);
        assert.ok(parsed.ok, parsed.ok ? undefined : `${uri}: ${parsed.error.message}`);
        assert.deepEqual({ ...parsed.value, secret: Buffer.from(parsed.value.secret) }, { ...key, secret: Buffer.from(key.secret) });
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses a key URI with one part broken as the documentation lists, naming that part', () => {
    fc.assert(
      fc.property(brokenUris, ({ uri, part }) => {
        const parsed = parse(uri);
        assert.ok(!parsed.ok, `${uri} was accepted`);
        assert.ok(parsed.error.message.startsWith(`${KEY_URI_FIELD}: ${part} `), `${uri}: ${parsed.error.message} should name ${part}`);
      }),
      { numRuns: 3000 },
    );
  });

  it('decodes Base32 that it accepts back to the bytes encoded, in either case', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 140 }), fc.boolean(), (bytes, lower) => {
        const text = lower ? encodeBase32(bytes).toLowerCase() : encodeBase32(bytes);
        assert.equal(base32Problem(text), undefined);
        assert.deepEqual(Buffer.from(decodeBase32(text)), Buffer.from(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  it('judges any recovery code by the documented rule, quickly', () => {
    fc.assert(
      fc.property(codeLike, (code) => assert.equal(timed(() => recoveryCodeProblem(code)) === undefined, codeIsValid(code), code)),
      {
        numRuns: 3000,
      },
    );
  });

  it('regression: a code of hyphen-separated groups with a bad last character took seconds (exponential backtracking)', () => {
    // The first two were found by the property above (107 ms and 392 ms); the third, 64 characters, took 19 s.
    const found = ['------------------7- -7a-7--7----77---7--\u0000', 'a-7a7--a----7------a- ---7---a-7-7------7-a7 ', `${'-a'.repeat(31)}-\u0000`];
    for (const code of found) {
      assert.match(timed(() => recoveryCodeProblem(code)) ?? '', /printable ASCII/);
    }
  });
});

for (const backend of backends()) {
  describe(`Importing TOTP credentials on ${backend.name}, fuzzed`, () => {
    let target: FuzzTarget;
    before(async () => {
      target = await fuzzTarget(backend);
    });
    after(() => target.t.close());

    const create = (params: Record<string, unknown>) =>
      target.t.call('POST', `/persons/${target.personId}/credentials`, { as: target.org, body: { type: 'totp', params } });

    it('imports a key URI exactly when the parser accepts it; a refusal names body.params.key_uri, stores nothing and never shows the key', async () => {
      const uris = fc.oneof(
        anyUri,
        goodUris.map(({ uri }) => uri),
        brokenUris.map(({ uri }) => uri),
      );
      await fc.assert(
        fc.asyncProperty(uris, async (uri) => {
          const before = await credentialCount(target);
          const response = await create({ key_uri: uri, recovery_codes_total: 0, unused_recovery_codes: [] });
          const parsed = uri.length > 0 ? parse(uri) : undefined;
          if (parsed?.ok) {
            assert.equal(response.status, 201, JSON.stringify(response.body));
            assert.deepEqual(response.body.result.params, { recovery_codes_total: 0, recovery_codes_unused: 0 });
            assert.equal(await credentialCount(target), before + 1);
          } else {
            assertRefusedNaming(response, KEY_URI_FIELD);
            assert.equal(await credentialCount(target), before, 'nothing stored');
          }
          const secret = /secret=([^&#]*)/i.exec(uri)?.[1];
          if (secret && secret.length >= 16) assert.ok(!JSON.stringify(response.body).includes(secret), 'the key is not shown');
        }),
        { numRuns: httpRuns(backend, 150) },
      );
    });

    const validCode = fc.stringMatching(/^[A-Z2-9]{5}-[A-Z2-9]{5}$/);
    const scenarios = fc.oneof(
      fc.record({ codes: fc.array(fc.oneof(validCode, codeLike), { maxLength: 6 }), extra: fc.integer({ min: 0, max: 5 }) }).map(({ codes, extra }) => ({
        codes,
        total: codes.length + extra,
      })),
      fc.record({ codes: fc.uniqueArray(validCode, { maxLength: 4 }), total: fc.oneof(fc.integer({ min: -3, max: 103 }), fc.double(), fc.constant('1')) }),
    );

    it('regression: a total of -0 (sent as 0 in JSON) is imported as 0', async () => {
      const response = await create({ key_uri: SEED_URI, recovery_codes_total: -0, unused_recovery_codes: [] });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      assert.deepEqual(response.body.result.params, { recovery_codes_total: 0, recovery_codes_unused: 0 });
    });

    it('imports recovery codes exactly when each follows the documented rule and they differ; a refusal names the field', async () => {
      await fc.assert(
        fc.asyncProperty(scenarios, async ({ codes, total }) => {
          const before = await credentialCount(target);
          const response = await create({ key_uri: SEED_URI, recovery_codes_total: total, unused_recovery_codes: codes });
          const normalised = codes.map((code) => code.replace(/[ -]/g, '').toUpperCase());
          const codesValid = codes.every(codeIsValid) && new Set(normalised).size === codes.length;
          const totalValid = Number.isInteger(total) && (total as number) >= codes.length && (total as number) <= 100;
          if (codesValid && totalValid) {
            assert.equal(response.status, 201, JSON.stringify(response.body));
            // JSON has no -0: a total of -0 arrives, and is stored, as 0.
            assert.deepEqual(response.body.result.params, { recovery_codes_total: (total as number) + 0, recovery_codes_unused: codes.length });
          } else {
            assertRefusedNaming(response, codesValid ? 'body.params.recovery_codes_total' : 'body.params.unused_recovery_codes');
            assert.equal(await credentialCount(target), before, 'nothing stored');
          }
        }),
        { numRuns: httpRuns(backend, 150) },
      );
    });
  });
}
