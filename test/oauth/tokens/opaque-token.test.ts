import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hashSecret } from '../../../src/crypto/ids.ts';
import { newOpaqueToken, opaqueTokenKey } from '../../../src/oauth/tokens/opaque-token.ts';

describe('Opaque token values and their storage keys', () => {
  it('keys sort by issue time, so new rows land together at the end of the index', () => {
    const times = [Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1) + 1, Date.UTC(2026, 5, 1), Date.UTC(2031, 0, 1)];
    const keys = times.map((t) => opaqueTokenKey(newOpaqueToken(t)));
    assert.deepEqual([...keys].sort(), keys);
  });

  it('keeps the secret out of the key: the key is the time and a SHA-256 of the whole value', () => {
    const value = newOpaqueToken(Date.UTC(2026, 10, 24));
    const key = opaqueTokenKey(value);
    assert.equal(key, `${value.slice(4, 14)}.${hashSecret(value)}`);
    assert.ok(!key.includes(value.slice(14)));
  });

  it('finds tokens issued before keys had a time under their hash alone', () => {
    const old = `tat_${'A'.repeat(43)}`;
    assert.equal(opaqueTokenKey(old), hashSecret(old));
    const lookalike = `tat_${'U'.repeat(10)}${'A'.repeat(43)}`; // U is not in Crockford's alphabet
    assert.equal(opaqueTokenKey(lookalike), hashSecret(lookalike));
  });

  it('reads a time only from a value of the new length, though an older or a longer one may start like one', () => {
    const old = `tat_${'0'.repeat(10)}${'A'.repeat(33)}`; // 43 characters after the prefix, the first 10 of them Crockford
    assert.equal(opaqueTokenKey(old), hashSecret(old));
    const longer = `${newOpaqueToken(Date.UTC(2026, 10, 24))}A`;
    assert.equal(opaqueTokenKey(longer), hashSecret(longer));
  });
});
