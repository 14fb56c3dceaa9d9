import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OAuthParams } from '../../src/oauth/form.ts';
import { OAuthError } from '../../src/oauth/errors.ts';

function refusal(body: string): { error: string; description: string } {
  try {
    new OAuthParams(body);
  } catch (error) {
    assert.ok(error instanceof OAuthError, String(error));
    return { error: error.error, description: error.message };
  }
  assert.fail(`${body} was accepted`);
}

describe('OAuth form parameters', () => {
  it('refuses a parameter given twice (RFC 6749 §3.2)', () => {
    assert.deepEqual(refusal('scope=a&scope=b'), { error: 'invalid_request', description: 'parameter scope must not be repeated' });
  });

  for (const body of ['scope=&scope=a', 'scope=a&scope=', 'scope=&scope=']) {
    it(`regression: an empty copy hid a repeated parameter (${body})`, () => {
      assert.deepEqual(refusal(body), { error: 'invalid_request', description: 'parameter scope must not be repeated' });
    });
  }

  it('treats a parameter sent once with an empty value as omitted (RFC 6749 §3.1)', () => {
    const params = new OAuthParams('scope=&grant_type=client_credentials');
    assert.equal(params.has('scope'), false);
    assert.equal(params.get('scope'), undefined);
    assert.equal(params.get('grant_type'), 'client_credentials');
  });

  it('lets audience and resource repeat, empty copies included, keeping only the non-empty ones', () => {
    const params = new OAuthParams('audience=a&audience=&audience=b&resource=&resource=https%3A%2F%2Fr.example');
    assert.deepEqual(params.all('audience'), ['a', 'b']);
    assert.deepEqual(params.all('resource'), ['https://r.example']);
  });
});
