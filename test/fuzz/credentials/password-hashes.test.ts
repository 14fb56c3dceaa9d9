import assert from 'node:assert/strict';
import { argon2Sync, pbkdf2Sync } from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { HashWorkPool, parseImportedPasswordHash, verifyPassword } from '../../../src/methods/password/index.ts';
import { PASSWORD_HASH_FIELD } from '../../../src/methods/password/password-hash.ts';
import { encodePhcBase64 } from '../../../src/methods/password/phc-base64.ts';
import { bcryptString } from '../../../src/methods/password/verify-bcrypt.ts';
import { backends } from '../../helpers/backends.ts';
import { assertRefusedNaming, credentialCount, dropPassword, type FuzzTarget, fuzzTarget, httpRuns, mutatedString, parsedOrRefused } from './fuzz-support.ts';
import { argon2Hashes, bcryptHashes, type GeneratedHash, pbkdf2Hashes, SEED_HASHES } from './password-hash-model.ts';

const bcrypt = createRequire(import.meta.url)('bcrypt') as { hashSync(data: string, rounds: number): string };

const parse = (text: string) => parsedOrRefused(PASSWORD_HASH_FIELD, () => parseImportedPasswordHash(text));
const CEILING_RULE = /so that one login cannot cost more than the service allows$/;

/** Texts shaped like the formats: their pieces in any order, so that every branch is reached. */
const PIECES = ['$', 'argon2id', 'argon2i', 'argon2d', '2b', '2', 'pbkdf2-sha256', 'pbkdf2', 'v=19', 'm=8,t=1,p=1', 'i=1,l=16', '05', 'c29tZXNhbHQ'];
const shaped = fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 3 })), { maxLength: 12 }).map((pieces) => pieces.join(''));
const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 600 }), shaped, fc.constantFrom(...SEED_HASHES).chain(mutatedString));

function checkAgainstModel({ text, expected }: GeneratedHash): void {
  const outcome = parse(text);
  assert.equal(
    outcome.ok ? 'accepted' : CEILING_RULE.test(outcome.error.message) ? 'ceiling' : 'format',
    expected,
    `${text}: ${outcome.ok || outcome.error.message}`,
  );
}

describe('Password hash parsing, fuzzed', () => {
  it('reads any text as a hash or refuses it with the 400 naming body.params.password_hash, quickly', () => {
    fc.assert(
      fc.property(anyText, (text) => void parse(text)),
      { numRuns: 6000 },
    );
  });

  it('accepts argon2 PHC strings exactly when the documented rules and ceilings hold', () => {
    fc.assert(fc.property(argon2Hashes, checkAgainstModel), { numRuns: 3000 });
  });

  it('accepts bcrypt strings exactly when the version, the cost (04–13) and the length are right', () => {
    fc.assert(fc.property(bcryptHashes, checkAgainstModel), { numRuns: 2000 });
  });

  it('accepts pbkdf2 strings exactly when the documented rules and the iteration ceiling hold', () => {
    fc.assert(fc.property(pbkdf2Hashes, checkAgainstModel), { numRuns: 3000 });
  });

  // A password typed into the field must not come back in the refusal (docs: "never quotes the hash").
  const password = fc.stringMatching(/^[a-zA-Z0-9_!@#-]{6,20}$/).map((rest) => `pw${rest}`);
  const holders: ((secret: string) => string)[] = [
    (p) => p,
    (p) => `$${p}`,
    (p) => `$2${p}`,
    (p) => `$2${p}$10$${'a'.repeat(53)}`,
    (p) => `$pbkdf2-${p}`,
    (p) => `$pbkdf2-${p}$i=1,l=16$c2FsdA$AAAAAAAAAAAAAAAAAAAAAA`,
    (p) => `$2b$${p}`,
    (p) => `$argon2id$v=19$m=${p},t=1,p=1$c29tZXNhbHQ$AAAAAAAAAAAAAAAAAAAAAA`,
    (p) => `$argon2id$v=19$m=8,t=1,p=1$${p}$${p}`,
    (p) => `$pbkdf2-sha256$i=1,l=16$${p}$${p}`,
  ];

  it('never quotes a password typed where a hash or one of its parts belongs', () => {
    fc.assert(
      fc.property(password, fc.constantFrom(...holders), (secret, hold) => {
        const outcome = parse(hold(secret));
        assert.ok(!outcome.ok && !outcome.error.message.includes(secret), outcome.ok ? 'accepted' : outcome.error.message);
      }),
      { numRuns: 1500 },
    );
  });

  it('regression: a plain-text password after $2 or $pbkdf2- came back in the bcrypt version or pbkdf2 digest refusal', () => {
    // The first is what the property above found (shrunk); the others, the same through pbkdf2.
    const found: [string, string][] = [
      ['$2pwaaaaaa', 'pwaaaaaa'],
      ['$2secretpassword', 'secretpassword'],
      ['$pbkdf2-secretpassword$i=1,l=16$c2FsdA$AAAAAAAAAAAAAAAAAAAAAA', 'secretpassword'],
    ];
    for (const [text, secret] of found) {
      const outcome = parse(text);
      assert.ok(!outcome.ok);
      assert.ok(!outcome.error.message.includes(secret), outcome.error.message);
    }
  });

  describe('real hashes made elsewhere', () => {
    const pool = new HashWorkPool({ concurrency: 1 });
    after(() => pool.close());
    const passwords = fc.tuple(fc.string({ minLength: 1, maxLength: 24 }), fc.string({ minLength: 1, maxLength: 24 })).filter(([a, b]) => a !== b);

    /** The hash parses to `parameters`, verifies `password` and refuses `other`. */
    async function roundTrip(text: string, parameters: Record<string, unknown>, password: string, other: string): Promise<void> {
      const parsed = parse(text);
      assert.ok(parsed.ok, parsed.ok ? undefined : parsed.error.message);
      assert.deepEqual(Object.fromEntries(Object.keys(parameters).map((key) => [key, (parsed.value as unknown as Record<string, unknown>)[key]])), parameters);
      assert.equal(await verifyPassword(text, password, pool), true);
      assert.equal(await verifyPassword(text, other, pool), false);
    }

    it('bcrypt package hashes ($2b$, and the same as $2a$ and $2y$ for ASCII) parse, re-encode and verify', async () => {
      await fc.assert(
        fc.asyncProperty(passwords, fc.constantFrom('2a', '2b', '2y'), async ([password, other], version) => {
          const made = bcrypt.hashSync(password, 4);
          const text = made.replace(/^\$2b\$/, `$${version}$`);
          await roundTrip(text, { function: 'bcrypt', version, cost: 4 }, password, other);
          const parsed = parseImportedPasswordHash(text);
          assert.equal(parsed.function === 'bcrypt' && bcryptString(version, parsed), text);
        }),
        { numRuns: 8 },
      );
    });

    const argon2Costs = fc.record({
      fn: fc.constantFrom('argon2i' as const, 'argon2id' as const),
      passes: fc.integer({ min: 1, max: 2 }),
      parallelism: fc.integer({ min: 1, max: 2 }),
      extraKiB: fc.integer({ min: 0, max: 48 }),
      salt: fc.uint8Array({ minLength: 8, maxLength: 32 }),
      tagLength: fc.integer({ min: 16, max: 64 }),
    });

    it('node:crypto argon2 tags in PHC form parse to their costs and verify', async () => {
      await fc.assert(
        fc.asyncProperty(passwords, argon2Costs, async ([password, other], { fn, passes, parallelism, extraKiB, salt, tagLength }) => {
          const memory = 8 * parallelism + extraKiB;
          const tag = argon2Sync(fn, { message: Buffer.from(password), nonce: salt, parallelism, tagLength, memory, passes });
          const text = `$${fn}$v=19$m=${memory},t=${passes},p=${parallelism}$${encodePhcBase64(salt)}$${encodePhcBase64(tag)}`;
          await roundTrip(text, { function: fn, version: 0x13, memoryKiB: memory, passes, parallelism, salt: Buffer.from(salt), hash: tag }, password, other);
        }),
        { numRuns: 8 },
      );
    });

    it('node:crypto pbkdf2 keys in the service format parse to their costs and verify', async () => {
      const costs = fc.record({
        digest: fc.constantFrom('sha1' as const, 'sha256' as const, 'sha512' as const),
        iterations: fc.integer({ min: 1, max: 2000 }),
        keyLength: fc.integer({ min: 16, max: 64 }),
        salt: fc.uint8Array({ minLength: 1, maxLength: 32 }),
      });
      await fc.assert(
        fc.asyncProperty(passwords, costs, async ([password, other], { digest, iterations, keyLength, salt }) => {
          const key = pbkdf2Sync(password, salt, iterations, keyLength, digest);
          const text = `$pbkdf2-${digest}$i=${iterations},l=${keyLength}$${encodePhcBase64(salt)}$${encodePhcBase64(key)}`;
          await roundTrip(text, { function: 'pbkdf2', version: digest, iterations, keyLength, hash: key }, password, other);
        }),
        { numRuns: 8 },
      );
    });
  });
});

for (const backend of backends()) {
  describe(`Importing password hashes on ${backend.name}, fuzzed`, () => {
    let target: FuzzTarget;
    before(async () => {
      target = await fuzzTarget(backend);
    });
    after(() => target.t.close());

    const texts = fc.oneof(
      fc.constantFrom(...SEED_HASHES).chain(mutatedString),
      argon2Hashes.map((hash) => hash.text),
      bcryptHashes.map((hash) => hash.text),
      pbkdf2Hashes.map((hash) => hash.text),
      fc.string({ unit: 'binary', maxLength: 600 }),
    );

    it('imports a hash exactly when the parser accepts it; a refusal is the 400 naming the field and stores nothing', async () => {
      await fc.assert(
        fc.asyncProperty(texts, async (text) => {
          await dropPassword(target);
          const before = await credentialCount(target);
          const body = { type: 'password', params: { password_hash: text } };
          const response = await target.t.call('POST', `/persons/${target.personId}/credentials`, { as: target.org, body });
          if (text.length > 0 && text.length <= 512 && parse(text).ok) {
            assert.equal(response.status, 201, JSON.stringify(response.body));
            assert.equal(response.body.result.params.password_hash, text);
            assert.equal(await credentialCount(target), before + 1);
          } else {
            assertRefusedNaming(response, PASSWORD_HASH_FIELD);
            assert.equal(await credentialCount(target), before, 'nothing stored');
          }
        }),
        { numRuns: httpRuns(backend, 150) },
      );
    });
  });
}
