import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CODE_PATTERN } from '../../src/verification/code.ts';

/** Spec §8: a code is exactly six ASCII digits. The verify bodies' schema and the console's code entry both use this pattern. */
describe('The shape of a verification code', () => {
  it('is six ASCII digits, nothing before or after', () => {
    for (const code of ['000000', '123456', '999999']) assert.equal(CODE_PATTERN.test(code), true, code);
    for (const code of ['12345', '1234567', 'a123456', '123456a', ' 123456', '123456 ', '12 456', '１２３４５６', '']) {
      assert.equal(CODE_PATTERN.test(code), false, JSON.stringify(code));
    }
  });
});
