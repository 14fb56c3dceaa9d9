import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MalformedClaim, readActClaim, readMayActClaim } from '../../../src/oauth/tokens/delegation-claims.ts';

/** The message `read` refuses `value` with, checking it is a MalformedClaim. */
function refusal(read: (value: unknown) => unknown, value: unknown): string {
  try {
    read(value);
  } catch (error) {
    assert.ok(error instanceof MalformedClaim);
    assert.equal(error.name, 'MalformedClaim');
    return error.message;
  }
  assert.fail(`accepted: ${JSON.stringify(value)}`);
}

describe('act and may_act claims (RFC 8693 §4.1, §4.4)', () => {
  it('reads an absent act or may_act as none', () => {
    assert.equal(readActClaim(undefined), undefined);
    assert.equal(readMayActClaim(undefined), undefined);
  });

  it('refuses an act level that is no object before looking for its sub', () => {
    for (const value of ['cli_a', 7, true, null, ['cli_a'], { sub: 'cli_a', act: 'cli_b' }]) {
      assert.equal(refusal(readActClaim, value), '"act" must be an object at every level', JSON.stringify(value));
    }
  });

  it('refuses a may_act that is not exactly an object with a non-empty string sub', () => {
    for (const value of ['cli_a', null, ['cli_a'], {}, { sub: '' }, { sub: 7 }, { sub: 'cli_a', act: { sub: 'cli_b' } }]) {
      assert.equal(refusal(readMayActClaim, value), '"may_act" must be an object holding only a non-empty string "sub"', JSON.stringify(value));
    }
    assert.deepEqual(readMayActClaim({ sub: 'cli_a' }), { sub: 'cli_a' });
  });
});
