import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isScopeToken, SCOPE_LIST_PATTERN, scopeSet, scopeTokenPattern, splitScope } from '../../src/oauth/scope.ts';

describe('Scope grammar (RFC 6749 §3.3)', () => {
  it('accepts every printable ASCII character except space, " and \\ in a token', () => {
    for (let code = 0x21; code <= 0x7e; code++) {
      const char = String.fromCharCode(code);
      assert.equal(isScopeToken(`a${char}b`), char !== '"' && char !== '\\', `character ${JSON.stringify(char)}`);
    }
  });

  it('refuses empty tokens, spaces, control and non-ASCII characters', () => {
    for (const bad of ['', 'a b', 'a\tb', 'a\nb', '\x7f', 'é', 'read\u00a0write']) assert.equal(isScopeToken(bad), false, JSON.stringify(bad));
  });

  it('builds schema patterns from the same grammar', () => {
    const token = new RegExp(scopeTokenPattern(3));
    assert.deepEqual(
      ['abc', 'a:b', 'abcd', '', 'a"b'].map((s) => token.test(s)),
      [true, true, false, false, false],
    );
    const list = new RegExp(SCOPE_LIST_PATTERN);
    assert.deepEqual(
      ['read', 'read write:all', 'read  write', ' read', 'read ', 'a\\b'].map((s) => list.test(s)),
      [true, true, false, false, false, false],
    );
  });

  it('splits a scope parameter, tolerating repeated spaces, and dedupes as a set', () => {
    assert.deepEqual(splitScope(' read  write read '), ['read', 'write', 'read']);
    assert.deepEqual([...scopeSet('read write read')], ['read', 'write']);
    assert.deepEqual(splitScope(''), []);
  });
});
