import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { FormEncodingError, formPairs } from '../../src/http/form-urlencoded.ts';

const pairs = (body: string) => [...formPairs(body)];

describe('formPairs: application/x-www-form-urlencoded, strictly', () => {
  it('reads back whatever URLSearchParams wrote, names and values of any Unicode text', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' })), { maxLength: 8 }), (written) => {
        const body = new URLSearchParams(written).toString();
        assert.deepEqual(pairs(body), written);
      }),
    );
  });

  it('decodes + as a space and %2B as a plus, in names and values; leaves a value with neither as it is', () => {
    assert.deepEqual(pairs('a+b=c+d&e%2Bf=g%2Bh&jwt=eyJh.eyJz-_.sig~'), [
      ['a b', 'c d'],
      ['e+f', 'g+h'],
      ['jwt', 'eyJh.eyJz-_.sig~'],
    ]);
  });

  it('refuses a stray %, a percent-encoding that is not UTF-8, and raw U+FFFD', () => {
    for (const body of ['a=100%', 'a=%FF', 'a=%E2%82', 'a=\uFFFD']) assert.throws(() => pairs(body), FormEncodingError, body);
  });
});
