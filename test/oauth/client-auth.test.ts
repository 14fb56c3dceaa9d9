import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { type ClientCredentials, type OAuthResponse, oauthPost, registerClient } from '../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const CHALLENGE = 'Basic realm="tessera", charset="UTF-8"';

/**
 * RFC 6749 §2.3.1 client authentication at the token endpoint (src/oauth/client-auth.ts): each
 * malformed way of presenting client credentials is refused with its own description, and the
 * forms that are well-formed still authenticate, so each refusal is about the one thing it breaks.
 */
for (const backend of backends()) {
  describe(`Client authentication at the token endpoint on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let client: ClientCredentials;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      client = await registerClient(t, org);
    });
    after(() => t.close());

    const base64 = (text: string) => Buffer.from(text).toString('base64');
    /** client_credentials with this Authorization header (if any) and these extra body parameters. */
    const request = (authorization: string | undefined, body: Record<string, string> = {}) =>
      oauthPost(t, '/oauth2/tokens', { grant_type: 'client_credentials', ...body }, undefined, authorization === undefined ? {} : { authorization });
    const basic = () => `Basic ${base64(`${client.id}:${client.secret}`)}`;
    const refusal = (response: OAuthResponse) => [response.status, response.body.error, response.body.error_description];
    const challenged = (response: OAuthResponse, description: string) => {
      assert.deepEqual(refusal(response), [401, 'invalid_client', description]);
      assert.equal(response.headers.get('www-authenticate'), CHALLENGE);
      assert.equal(response.body.access_token, undefined);
    };

    it('authenticates with HTTP Basic whatever the case of the scheme, and with client_id and client_secret in the body', async () => {
      assert.equal((await request(basic())).status, 200);
      assert.equal((await request(basic().replace('Basic', 'bASIC'))).status, 200);
      assert.equal((await request(undefined, { client_id: client.id, client_secret: client.secret })).status, 200);
    });

    it('refuses an Authorization header that is not HTTP Basic with one base64 token, wherever it differs', async () => {
      const description = 'the Authorization header must be HTTP Basic with the client id and secret';
      const valid = base64(`${client.id}:${client.secret}`);
      // Each of these carries the valid credentials: only the header's form refuses it.
      for (const header of [
        `Bearer ${valid}`,
        `XBasic ${valid}`,
        `Bearer Basic ${valid}`,
        `Basic ${valid} extra`,
        `Basic ${valid}!`,
        `Basic ${valid}=x`,
        'Basic',
      ]) {
        challenged(await request(header), description);
      }
    });

    it('refuses Basic credentials without the colon between client_id and client_secret', async () => {
      challenged(await request(`Basic ${base64(`${client.id}${client.secret}`)}`), 'the Basic credentials must be client_id:client_secret');
    });

    it('refuses Basic credentials that are not valid form encoding (RFC 6749 §2.3.1), in the id as in the secret', async () => {
      const description = 'the Basic credentials are not valid form encoding';
      challenged(await request(`Basic ${base64(`${client.id}%zz:${client.secret}`)}`), description);
      challenged(await request(`Basic ${base64(`${client.id}:${client.secret}%E0%A4%A`)}`), description);
    });

    it('decodes form-encoded Basic credentials: a client id written with percent escapes is the same client', async () => {
      const escaped = [...client.id].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
      assert.equal((await request(`Basic ${base64(`${escaped}:${encodeURIComponent(client.secret)}`)}`)).status, 200);
    });

    it('accepts a body client_id naming the Basic client, and refuses one naming another', async () => {
      assert.equal((await request(basic(), { client_id: client.id })).status, 200);
      const other = await registerClient(t, org, { client_name: 'other' });
      assert.deepEqual(refusal(await request(basic(), { client_id: other.id })), [
        400,
        'invalid_request',
        'client_id in the body differs from the HTTP Basic client',
      ]);
    });

    it('refuses a body client_secret without client_id, and a client_id without client_secret (no public clients)', async () => {
      challenged(await request(undefined, { client_secret: client.secret }), 'client_secret was sent without client_id');
      challenged(await request(undefined, { client_id: client.id }), 'client_id was sent without client_secret; this server has no public clients');
      challenged(
        await request(undefined, { client_id: client.id, client_secret: '' }),
        'client_id was sent without client_secret; this server has no public clients',
      );
    });
  });
}
