import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClaimProblem, checkAccessTokenClaims } from '../../../src/oauth/tokens/access-token-claims.ts';

const ISSUER = 'https://tessera.test';
const NOW = 1_900_000_000;
const RULES = { issuer: ISSUER, now: NOW, clockTolerance: 5, maxIatSkew: 60 };
const VALID = { iss: ISSUER, aud: ISSUER, sub: 'per_ada', oid: 'org_a', iat: NOW, exp: NOW + 600 };

function problem(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  try {
    checkAccessTokenClaims(header, claims, RULES);
  } catch (error) {
    assert.ok(error instanceof ClaimProblem);
    assert.equal(error.name, 'ClaimProblem');
    return error.message;
  }
  assert.fail(`accepted: ${JSON.stringify({ header, claims })}`);
}

describe('RFC 9068 claim checks of our own access tokens', () => {
  it('accepts "at+jwt" in any case, with or without "application/", and nothing else', () => {
    for (const typ of ['at+jwt', 'AT+JWT', 'application/at+jwt']) checkAccessTokenClaims({ typ }, VALID, RULES);
    // "application/" is a prefix only: taken out of the middle or the end, it would leave "at+jwt".
    for (const typ of ['JWT', 'at+jwt ', undefined, 1, 'at+application/jwt', 'at+jwtapplication/', 'x-application/at+jwt'])
      assert.equal(problem({ typ }, VALID), 'failed the "typ" check (it must be "at+jwt")');
  });

  it('names the first missing registered claim, and the audience in words', () => {
    for (const name of ['iss', 'sub', 'exp', 'iat', 'oid']) {
      const { [name as keyof typeof VALID]: _, ...rest } = VALID;
      assert.equal(problem({ typ: 'at+jwt' }, rest), `failed the "${name}" check (missing)`);
    }
    const { aud: _, ...noAudience } = VALID;
    assert.equal(problem({ typ: 'at+jwt' }, noAudience), 'is not meant for this service ("aud" must be its issuer URL)');
  });

  it('requires this issuer, and this issuer among the audiences', () => {
    assert.match(problem({ typ: 'at+jwt' }, { ...VALID, iss: 'https://evil.example' }), /"iss"/);
    checkAccessTokenClaims({ typ: 'at+jwt' }, { ...VALID, aud: ['https://other.example', ISSUER] }, RULES);
    assert.match(problem({ typ: 'at+jwt' }, { ...VALID, aud: { 0: ISSUER } }), /"aud"/);
  });

  it('refuses numeric dates that are not finite numbers', () => {
    for (const name of ['iat', 'nbf', 'exp']) {
      assert.equal(problem({ typ: 'at+jwt' }, { ...VALID, [name]: String(NOW) }), `failed the "${name}" check (must be a number)`);
    }
    assert.equal(problem({ typ: 'at+jwt' }, { ...VALID, exp: Number.POSITIVE_INFINITY }), 'failed the "exp" check (must be a number)');
  });

  it('refuses an organisation or a subject that is not a string', () => {
    assert.equal(problem({ typ: 'at+jwt' }, { ...VALID, oid: 7 }), 'has no organisation (oid)');
    assert.equal(problem({ typ: 'at+jwt' }, { ...VALID, sub: ['per_ada'] }), 'has a malformed claim: "sub" must be a string');
  });
});
