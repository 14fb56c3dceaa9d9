import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readToken, stripToken, type TokenLocation } from '../../src/gateway/plugins/token-exchange/credentials.ts';
import type { ForwardHeaders } from '../../src/gateway/request/headers.ts';

/**
 * Where the token-exchange plugin finds a token and how it removes it before forwarding
 * (src/gateway/plugins/token-exchange/credentials.ts): the reading decides between 401
 * GATEWAY_SUBJECT_MISSING, 401 GATEWAY_SUBJECT_MALFORMED (with the reason in its message) and
 * an exchange; the stripping decides what the upstream still gets.
 */

const header: TokenLocation = { header: 'Authorization' };
const cookie: TokenLocation = { cookie: 'session' };
const token = (value: string) => ({ kind: 'token', token: value });
const missing = { kind: 'missing' };
const TOO_LONG = { kind: 'malformed', reason: 'is longer than 16384 characters' };
const NOT_B64 = { kind: 'malformed', reason: 'is not a bearer token (RFC 6750 b64token: letters, digits, -._~+/ and trailing =)' };

describe('Reading a token from a header', () => {
  const cases: [string, string | string[] | undefined, object][] = [
    ['Bearer and the token', 'Bearer abc.DEF-_~+/==', token('abc.DEF-_~+/==')],
    ['the scheme in another case', 'bEARER abc', token('abc')],
    ['several spaces after the scheme', 'Bearer    abc', token('abc')],
    ['a tab after the scheme', 'Bearer\tabc', token('abc')],
    ['tabs and spaces after the scheme', 'Bearer \t \tabc', token('abc')],
    ['white space around the value', ' \tBearer abc \t', token('abc')],
    ['no header', undefined, missing],
    ['an empty header', '', missing],
    ['only white space', '  \t ', missing],
    ['the scheme alone', 'Bearer', missing],
    ['a value without the scheme, taken whole', 'abc.def', token('abc.def')],
    ['a value that only starts like the scheme, taken whole', 'Bearerabc', token('Bearerabc')],
    ['another scheme before Bearer, taken whole', 'Basic Bearer abc', NOT_B64],
    ['a space inside the token', 'Bearer ab cd', NOT_B64],
    ['a space after the token and more', 'Bearer ab cd=', NOT_B64],
    ['a non-breaking space before the token (only spaces and tabs part it from the scheme)', 'Bearer \u00a0abc', NOT_B64],
    ['a quote in the token', 'Bearer "abc"', NOT_B64],
    ['a comma in the token', 'Bearer abc,def', NOT_B64],
    ['"=" before the end of the token', 'Bearer ab=c', NOT_B64],
    ['"=" only', 'Bearer ==', NOT_B64],
    ['a non-ASCII letter', 'Bearer caf\u00e9', NOT_B64],
    ['the first of repeated values', ['Bearer first', 'Bearer second'], token('first')],
  ];
  for (const [what, value, reading] of cases) {
    it(`reads ${what}`, () => {
      const headers: ForwardHeaders = value === undefined ? {} : { authorization: value };
      assert.deepEqual(readToken(headers, header), reading);
    });
  }

  it('reads the header by its name in any case (Node lower-cases header names)', () => {
    assert.deepEqual(readToken({ 'x-token': 'abc' }, { header: 'X-Token' }), token('abc'));
  });

  it('takes a token of 16,384 characters and refuses one of 16,385', () => {
    const longest = 'a'.repeat(16_384);
    assert.deepEqual(readToken({ authorization: `Bearer ${longest}` }, header), token(longest));
    assert.deepEqual(readToken({ authorization: `Bearer ${longest}b` }, header), TOO_LONG);
    assert.deepEqual(readToken({ authorization: `Bearer ${'a b'.repeat(6_000)}` }, header), TOO_LONG);
  });
});

describe('Reading a token from a cookie', () => {
  const cases: [string, string | string[] | undefined, object][] = [
    ['the named cookie among others', 'a=1; session=abc; b=2', token('abc')],
    ['white space around the name and value', ' a=1 ;  session =  abc  ;b=2', token('abc')],
    ['the first of two cookies of that name', 'session=first; session=second', token('first')],
    ['no Cookie header', undefined, missing],
    ['a Cookie header without that cookie', 'a=1; b=2', missing],
    ['the cookie with an empty value', 'session=; a=1', missing],
    ['the name in another case (only the exact name is read)', 'SESSION=abc', missing],
    ['a part without "=" named like the cookie', 'session; a=1', missing],
    ['the cookie spread over two Cookie headers', ['a=1', 'session=abc'], token('abc')],
    ['a value that is not a b64token', 'session=a%20b', NOT_B64],
  ];
  for (const [what, value, reading] of cases) {
    it(`reads ${what}`, () => {
      const headers: ForwardHeaders = value === undefined ? {} : { cookie: value };
      assert.deepEqual(readToken(headers, cookie), reading);
    });
  }

  it('refuses a cookie value longer than 16,384 characters', () => {
    assert.deepEqual(readToken({ cookie: `session=${'a'.repeat(16_385)}` }, cookie), TOO_LONG);
  });
});

describe('Stripping the token before forwarding', () => {
  const stripped = (where: TokenLocation, headers: ForwardHeaders, value = 'tok') => {
    stripToken(headers, where, value);
    return headers;
  };

  it('removes the whole header, and only it', () => {
    assert.deepEqual(stripped({ header: 'X-Token' }, { 'x-token': 'tok', cookie: 'session=tok', accept: '*/*' }), { cookie: 'session=tok', accept: '*/*' });
  });

  it('removes the cookie and keeps the others as they were', () => {
    assert.deepEqual(stripped(cookie, { cookie: 'a=1; session=tok; b=x=y', accept: '*/*' }), { cookie: 'a=1; b=x=y', accept: '*/*' });
  });

  it('removes the Cookie header when no cookie is left', () => {
    assert.deepEqual(stripped(cookie, { cookie: 'session=tok', accept: '*/*' }), { accept: '*/*' });
  });

  it('removes every cookie a lenient parser could read as that cookie: another case, percent-encoded, another value', () => {
    assert.deepEqual(stripped(cookie, { cookie: 'SESSION=other; sessi%6Fn=x; %53ession=y; Session=tok; keep=1' }), { cookie: 'keep=1' });
  });

  it('removes a cookie whose name lower-cases to that name only outside ASCII (the Kelvin sign K is k)', () => {
    assert.deepEqual(stripped({ cookie: 'kid' }, { cookie: '%E2%84%AAid=x; keep=1' }), { cookie: 'keep=1' });
  });

  it('removes any cookie whose value carries the token, as after a "," old parsers read as a separator', () => {
    assert.deepEqual(stripped(cookie, { cookie: 'session=tok; other=x,session=tok; keep=1' }), { cookie: 'keep=1' });
  });

  it('compares names that are not valid percent-encoding as they are, in any case', () => {
    assert.deepEqual(stripped({ cookie: 'tok%' }, { cookie: 'TOK%=x; other%=y; tok%zz=z' }), { cookie: 'other%=y; tok%zz=z' });
    // Lower-cased, not upper-cased: no parser reads ß as ss.
    assert.deepEqual(stripped({ cookie: 'ss%' }, { cookie: '\u00df%=x; SS%=y; keep=1' }), { cookie: '\u00df%=x; keep=1' });
  });

  it('forwards no part that is not a cookie (no "=", or nothing before it)', () => {
    assert.deepEqual(stripped(cookie, { cookie: '=y; flag; =x; session=tok' }), {});
    assert.deepEqual(stripped(cookie, { cookie: 'flag; =x; session=tok; a=1' }), { cookie: 'a=1' });
  });

  it('joins Cookie headers sent apart into one', () => {
    assert.deepEqual(stripped(cookie, { cookie: ['a=1', 'session=tok', 'b=2'] }), { cookie: 'a=1; b=2' });
  });
});
