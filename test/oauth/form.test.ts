import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OAuthError } from '../../src/oauth/errors.ts';
import { OAuthParams } from '../../src/oauth/form.ts';
import { backends } from '../helpers/backends.ts';
import { type ClientCredentials, createPerson, EXCHANGE, JWT_TYPE, mintPersonToken, registerClient, token } from '../helpers/oauth.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

function refusal(body: string): { error: string; description: string } {
  try {
    new OAuthParams(body);
  } catch (error) {
    assert.ok(error instanceof OAuthError, String(error));
    return { error: error.code, description: error.message };
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

  for (const body of ['scope=a%ffb', 'scope=%C0%AF', 'scope=50%', 'scope=%zz', 'sco%E2%82pe=a', 'scope=a\uFFFDb']) {
    it(`regression: a percent-encoding that is not UTF-8 (${JSON.stringify(body)}) is refused, not read as U+FFFD or a literal`, () => {
      const { error, description } = refusal(body);
      assert.equal(error, 'invalid_request');
      assert.match(description, /^the request body (has a percent-encoding that is not UTF-8|is not valid UTF-8)/);
    });
  }

  it('decodes +, %20 and multi-byte UTF-8 as a form does', () => {
    const params = new OAuthParams('scope=read+write%20admin&audience=%E6%97%A5%E6%9C%AC&resource=a%25b');
    assert.equal(params.get('scope'), 'read write admin');
    assert.equal(params.get('audience'), '日本');
    assert.equal(params.get('resource'), 'a%b');
  });

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

for (const backend of backends()) {
  describe(`Repeated and empty parameters at the token endpoint on ${backend.name}`, () => {
    let t: TestService;
    let gateway: ClientCredentials;
    let personToken: string;

    before(async () => {
      t = await startTestService(backend);
      const org = await t.org();
      gateway = await registerClient(t, org);
      personToken = await mintPersonToken(t, org, await createPerson(t, org));
    });
    after(() => t.close());

    it('regression: subject_token given twice, once empty, was exchanged; now 400 invalid_request naming it', async () => {
      const response = await token(t, { grant_type: EXCHANGE, subject_token: ['', personToken], subject_token_type: JWT_TYPE }, gateway);
      assert.equal(response.status, 400, JSON.stringify(response.body));
      assert.deepEqual(response.body, { error: 'invalid_request', error_description: 'parameter subject_token must not be repeated' });
    });

    it('refuses scope given twice, once empty, on client_credentials', async () => {
      const response = await token(t, { grant_type: 'client_credentials', scope: ['orders:read', ''] }, gateway);
      assert.deepEqual(
        [response.status, response.body.error, response.body.error_description],
        [400, 'invalid_request', 'parameter scope must not be repeated'],
      );
    });

    it('treats scope sent once and empty as omitted: every scope the client holds', async () => {
      const response = await token(t, { grant_type: 'client_credentials', scope: '' }, gateway);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.equal(response.body.scope, 'orders:read orders:write');
    });
  });
}
