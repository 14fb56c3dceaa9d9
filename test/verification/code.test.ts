import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { CODE_PATTERN, newVerificationCode, verificationHasher } from '../../src/verification/code.ts';

const SECRET = 'a-test-secret-of-at-least-32-characters';

describe('Verification codes', () => {
  it('are six digits, leading zeros kept', () => {
    const codes = Array.from({ length: 2_000 }, newVerificationCode);
    for (const code of codes) assert.match(code, CODE_PATTERN);
    assert.ok(
      codes.some((code) => code.startsWith('0')),
      'about one in ten starts with 0',
    );
  });

  it('spread evenly over every digit position (a sanity check of the draw, not a proof)', () => {
    const draws = 50_000;
    const counts = Array.from({ length: 6 }, () => new Array<number>(10).fill(0));
    for (let i = 0; i < draws; i++) {
      const code = newVerificationCode();
      for (let position = 0; position < 6; position++) counts[position]![Number(code[position])]!++;
    }
    // Chi-squared with 9 degrees of freedom: 39.3 is the 0.001% tail, so a fair draw fails
    // about once in 17,000 runs of this test; a stuck or doubled digit scores in the thousands.
    const expected = draws / 10;
    for (const [position, row] of counts.entries()) {
      const chi2 = row.reduce((sum, observed) => sum + (observed - expected) ** 2 / expected, 0);
      assert.ok(chi2 < 39.3, `position ${position}: chi2 ${chi2.toFixed(1)} for ${row.join(',')}`);
    }
    assert.ok(new Set(Array.from({ length: 1_000 }, newVerificationCode)).size > 990, 'no short cycle');
  });
});

describe('Verification code hashes', () => {
  const hasher = verificationHasher(SECRET);

  it('match their own code and verification only', () => {
    const hash = hasher.hashCode('evf_1', '123456');
    assert.equal(hasher.codeMatches('evf_1', '123456', hash), true);
    assert.equal(hasher.codeMatches('evf_1', '123457', hash), false);
    assert.equal(hasher.codeMatches('evf_2', '123456', hash), false, "another verification's hash never matches");
    assert.equal(hasher.codeMatches('evf_1', '123456', 'not-a-hash'), false);
    assert.equal(hasher.codeMatches('evf_1', '123456', ''), false);
  });

  it('are keyed: neither a plain hash of the code nor the same under another secret', () => {
    const hash = hasher.hashCode('evf_1', '123456');
    assert.equal(hash, verificationHasher(SECRET).hashCode('evf_1', '123456'), 'stable across instances and replicas');
    assert.notEqual(hash, verificationHasher(`${SECRET}-other`).hashCode('evf_1', '123456'));
    for (const plain of ['123456', 'evf_1123456', 'evf_1:123456']) assert.notEqual(hash, createHash('sha256').update(plain).digest('base64url'));
    assert.notEqual(hasher.hashCode('evf_1', '123456'), hasher.hashCode('evf_2', '123456'), 'equal codes do not look alike');
    assert.notEqual(hasher.hashCode('evf_1:1', '23456'), hasher.hashCode('evf_1', '1:23456'), 'no two pairs spell the same input');
  });
});
