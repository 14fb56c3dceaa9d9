import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { type ClientJwksServer, type ClientKey, clientKey, signAssertion, startClientJwksServer } from '../helpers/client-jwks-server.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import { clientCredentialsOutcomes, oauthPost } from '../helpers/oauth.ts';
import type { TestOrg, TestService } from '../helpers/service.ts';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const MINUTE = 60_000;

/**
 * private_key_jwt with keys published at a jwks_uri (design §4): fetched when an assertion comes,
 * cached, refetched for a kid the cached set lacks at most once a minute per client, the last
 * good set kept through the client's outage. The service's clock is frozen; the key server is a
 * real HTTP server on port 0 that counts what it is asked.
 */
for (const backend of backends()) {
  describe(`private_key_jwt keys from a jwks_uri on ${backend.name} (issue 29)`, () => {
    const clock: TestClock = { at: Date.UTC(2026, 10, 28, 9) };
    let t: TestService;
    let org: TestOrg;
    let published: ClientJwksServer;
    let first: ClientKey;
    let clientId: string;

    before(async () => {
      t = await startFrozenService(backend, clock, { dev: true });
      org = await t.org();
    });
    after(async () => {
      await published.close();
      await t.close();
    });

    beforeEach(async () => {
      await published?.close();
      first = await clientKey('k1');
      published = await startClientJwksServer([first.jwk]);
      const registered = await t.call('POST', '/oauth2/clients', {
        as: org,
        body: { client_name: 'published keys', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks_uri: published.url },
      });
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      assert.equal(registered.body.result.jwks_uri, published.url);
      assert.equal(registered.body.result.client_secret, undefined, 'a keyed client is given no secret');
      assert.equal(published.fetches, 0, 'registration does not fetch the keys: the client may publish them later');
      clientId = registered.body.result.client_id;
    });

    const tokenWith = async (key: ClientKey, claims: Record<string, unknown> = {}) =>
      oauthPost(t, '/oauth2/tokens', {
        grant_type: 'client_credentials',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await signAssertion(key, clientId, t.service.issuer, clock.at, claims),
      });

    it('fetches the keys for the first assertion and reuses them for five minutes', async () => {
      for (let i = 0; i < 3; i++) assert.equal((await tokenWith(first)).status, 200);
      assert.equal(published.fetches, 1);
      clock.at += 5 * MINUTE;
      assert.equal((await tokenWith(first)).status, 200);
      assert.equal(published.fetches, 2, 'a set five minutes old is fetched again');
    });

    it('follows a rotation: a new kid refetches the set at once, the retired key is refused after the refetch', async () => {
      assert.equal((await tokenWith(first)).status, 200);
      const second = await clientKey('k2');
      published.keys = [second.jwk];
      clock.at += MINUTE;
      const rotated = await tokenWith(second);
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      assert.equal(published.fetches, 2);
      const retired = await tokenWith(first);
      assert.equal(retired.status, 401);
      assert.equal(retired.body.error, 'invalid_client');
    });

    it('refetches for unknown kids at most once a minute, so forged kids cannot make it hammer the client', async () => {
      assert.equal((await tokenWith(first)).status, 200);
      const stranger = await clientKey('forged');
      for (let i = 0; i < 20; i++) assert.equal((await tokenWith(stranger)).status, 401);
      assert.equal(published.fetches, 1, 'the set had just been fetched: no refetch within the minute');
      clock.at += MINUTE;
      for (let i = 0; i < 20; i++) assert.equal((await tokenWith(stranger)).status, 401);
      assert.equal(published.fetches, 2, 'one refetch in the next minute');
    });

    it('keeps the last good set while the jwks_uri fails, and says to come back when it never had one', async () => {
      published.failWith = 500;
      const never = await tokenWith(first);
      assert.equal(never.status, 503, JSON.stringify(never.body));
      assert.deepEqual(never.body, {
        error: 'temporarily_unavailable',
        error_description: "the client's keys could not be fetched from its jwks_uri; try again later",
      });
      assert.equal(never.headers.get('retry-after'), '60');
      assert.deepEqual(
        await clientCredentialsOutcomes(t, org, clientId),
        [['refused', 'temporarily_unavailable']],
        "the refusal is audited in the client's organisation",
      );
      assert.equal((await tokenWith(first)).status, 503);
      assert.equal(published.fetches, 1, 'a failed fetch is not retried within the minute');
      published.failWith = undefined;
      clock.at += MINUTE;
      assert.equal((await tokenWith(first)).status, 200);
      published.failWith = 502;
      clock.at += 10 * MINUTE;
      assert.equal((await tokenWith(first)).status, 200, 'the stale set serves while the refetch fails');
      assert.equal(published.fetches, 3);
    });

    it('skips published keys a client assertion may not use, and keeps the last good set when a refetch holds none', async () => {
      const { d: _private, ...noAlg } = { ...first.jwk, d: undefined };
      published.keys = [
        { kty: 'oct', k: 'c2VjcmV0', kid: 'hmac' },
        { ...noAlg, kid: 'enc', use: 'enc' },
        { kty: 'EC', crv: 'P-384', x: 'x', y: 'y', kid: 'p384' },
        first.jwk,
      ];
      assert.equal((await tokenWith(first)).status, 200, 'the usable key among the others verifies');
      published.keys = [{ kty: 'oct', k: 'c2VjcmV0', kid: 'k1' }];
      clock.at += 5 * MINUTE;
      // The refetch answers no usable key: the last good set is kept.
      assert.equal((await tokenWith(first)).status, 200);
    });
  });
}

describe('registering a jwks_uri (issue 29)', () => {
  const [sqlite] = backends();
  let t: TestService;
  let org: TestOrg;
  const clock: TestClock = { at: Date.now() };

  before(async () => {
    t = await startFrozenService(sqlite!, clock);
    org = await t.org();
  });
  after(() => t.close());

  const register = (extra: Record<string, unknown>) =>
    t.call('POST', '/oauth2/clients', {
      as: org,
      body: { client_name: 'keyed', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', ...extra },
    });

  it('refuses http, loopback and private addresses outside development, a fragment, and jwks beside it', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ jwks_uri: 'http://keys.example.com/jwks.json' }, 'body.jwks_uri: must use https'],
      [{ jwks_uri: 'http://127.0.0.1:9/jwks.json' }, 'body.jwks_uri: http is allowed for loopback only when the service runs with TESSERA_DEV=1; use https'],
      [{ jwks_uri: 'https://10.0.0.7/jwks.json' }, 'body.jwks_uri: must not name or resolve to a loopback'],
      [{ jwks_uri: 'https://169.254.169.254/latest/meta-data' }, 'body.jwks_uri: must not name or resolve to a loopback'],
      [{ jwks_uri: 'https://[::1]/jwks.json' }, 'body.jwks_uri: must not name or resolve to a loopback'],
      [{ jwks_uri: 'https://keys.example.com/jwks.json#x' }, 'body.jwks_uri: must not carry a fragment or credentials'],
      [{ jwks_uri: 'not a url' }, 'body.jwks_uri: must be an absolute URL'],
      [{ jwks_uri: 'https://keys.example.com/jwks.json', jwks: { keys: [{ kty: 'EC' }] } }, 'body.jwks_uri: must not be given beside jwks'],
      [{ token_endpoint_auth_method: 'client_secret_basic', jwks_uri: 'https://keys.example.com/jwks.json' }, 'body.jwks_uri: is not used with'],
    ];
    for (const [body, message] of cases) {
      const response = await register(body);
      assert.equal(response.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(response.body)}`);
      assert.ok(response.body.errors[0].message.startsWith(message), `${JSON.stringify(body)}: ${response.body.errors[0].message}`);
    }
    const listed = await t.call('GET', '/oauth2/clients', { as: org });
    assert.deepEqual(listed.body.result, [], 'nothing was registered');
  });
});
