import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nulAt } from '../../src/validation/nul-character.ts';

describe('nulAt: where a validated value holds U+0000', () => {
  it('names the string or member name by its JSON pointer, escaping ~ and /', () => {
    assert.equal(nulAt({ a: [{ 'b/c~d': 'x\u0000' }] }), '/a/0/b~1c~0d');
    assert.equal(nulAt({ ok: 'fine', list: ['a', { 'key\u0000': 1 }] }), '/list/1/key\u0000');
    assert.equal(nulAt('\u0000'), '');
  });

  it('finds nothing in a value without it, whatever its shape', () => {
    assert.equal(nulAt({ a: [1, true, null, { b: 'text', c: [] }], d: 'more' }), undefined);
    assert.equal(nulAt(undefined), undefined);
  });
});
