import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verifyTotp } from '../../../src/methods/totp/verify.ts';
import { testContext } from './test-context.ts';
import { oathtoolVectors, rfc6238Vectors, storedFor, type TotpVector } from './vectors.ts';

const { context } = testContext();

/** The same instant shifted by whole periods: the phase within the step stays as the vector's. */
const shifted = (vector: TotpVector, steps: number) => (vector.unixSeconds + steps * vector.period) * 1000;
const stepOf = (vector: TotpVector) => Math.floor(vector.unixSeconds / vector.period);

async function checkVector(vector: TotpVector): Promise<void> {
  const stored = await storedFor(vector, context);
  const step = stepOf(vector);
  assert.equal(verifyTotp(vector.code, stored, context, vector.unixSeconds * 1000), step, `${vector.name}: at its time`);
  assert.equal(verifyTotp(vector.code, stored, context, shifted(vector, 1)), step, `${vector.name}: one step later`);
  assert.equal(verifyTotp(vector.code, stored, context, shifted(vector, 2)), undefined, `${vector.name}: two steps later`);
  if (step >= 2) {
    assert.equal(verifyTotp(vector.code, stored, context, shifted(vector, -1)), step, `${vector.name}: one step earlier`);
    assert.equal(verifyTotp(vector.code, stored, context, shifted(vector, -2)), undefined, `${vector.name}: two steps earlier`);
  }
}

describe('TOTP verification: independent vectors', () => {
  it('RFC 6238 Appendix B (SHA1, SHA256, SHA512, 8 digits): each verifies at its time and ±1 step, not ±2', async () => {
    const vectors = rfc6238Vectors();
    assert.equal(vectors.length, 18);
    for (const vector of vectors) await checkVector(vector);
  });

  it('oathtool (SHA1/SHA256/SHA512, 6 and 8 digits, 30 s and 60 s): each verifies at its time and ±1 step, not ±2', async () => {
    const vectors = oathtoolVectors();
    const combinations = new Set(vectors.map((vector) => `${vector.algorithm}/${vector.digits}/${vector.period}`));
    assert.equal(combinations.size, 12);
    for (const vector of vectors) await checkVector(vector);
  });

  it('uses the credential’s own algorithm, digits and period, not SHA1/6/30', async () => {
    const vectors = oathtoolVectors();
    const sha512 = vectors.find((vector) => vector.algorithm === 'SHA512' && vector.digits === 8 && vector.period === 60)!;
    const now = sha512.unixSeconds * 1000;
    assert.equal(verifyTotp(sha512.code, await storedFor({ ...sha512, algorithm: 'SHA1' }, context), context, now), undefined);
    assert.equal(verifyTotp(sha512.code, await storedFor({ ...sha512, period: 30 }, context), context, now), undefined);
    // A 6-digit code is the same HOTP value modulo 10^6, so only the length tells them apart.
    assert.equal(verifyTotp(sha512.code, await storedFor({ ...sha512, digits: 6 }, context), context, now), undefined);
    assert.equal(verifyTotp(sha512.code.slice(2), await storedFor(sha512, context), context, now), undefined);
    assert.equal(verifyTotp(sha512.code, await storedFor(sha512, context), context, now), stepOf(sha512));
  });
});

describe('TOTP verification: what is not a code', () => {
  it('refuses codes of the wrong length or with anything but ASCII digits', async () => {
    const vector = rfc6238Vectors()[0]!;
    const stored = await storedFor(vector, context);
    const now = vector.unixSeconds * 1000;
    for (const code of ['', vector.code.slice(1), `${vector.code}0`, ` ${vector.code.slice(1)}`, '9428708a', '９４２８７０８２', '-4287082', '94287083']) {
      assert.equal(verifyTotp(code, stored, context, now), undefined, JSON.stringify(code));
    }
  });

  it('does not look before time step 0', async () => {
    const vector = rfc6238Vectors()[0]!;
    const stored = await storedFor(vector, context);
    assert.equal(verifyTotp(vector.code, stored, context, 0), vector.unixSeconds > 0 ? 1 : undefined);
    assert.equal(verifyTotp(vector.code, stored, context, -60_000), undefined);
  });

  it('cannot open a key sealed under another service secret', async () => {
    const vector = rfc6238Vectors()[0]!;
    const stored = await storedFor(vector, context);
    const other = testContext('another service secret, also thirty-two characters long').context;
    assert.throws(() => verifyTotp(vector.code, stored, other, vector.unixSeconds * 1000));
  });
});
