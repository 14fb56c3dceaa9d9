import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Store } from '../../src/store/store.ts';
import { backends } from '../helpers/backends.ts';
import { startFrozenService } from '../helpers/frozen-service.ts';
import { type ClientCredentials, type OAuthResponse, oauthPost, registerClient } from '../helpers/oauth.ts';
import type { TestOrg, TestService } from '../helpers/service.ts';

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
    /** The client ids the endpoint looked up in the store, in order. */
    const lookedUp: string[] = [];
    /** A client id whose stored secret hash the store answers cut short, as a hash of another scheme would be. */
    let shortHashOf: string | undefined;

    before(async () => {
      const wrapStore = (real: Store): Store =>
        new Proxy(real, {
          get(target, name) {
            if (name !== 'findClientWithConfig') return Reflect.get(target, name);
            return (id: string) => {
              lookedUp.push(id);
              return target
                .findClientWithConfig(id)
                .then((found) =>
                  found && id === shortHashOf ? { ...found, client: { ...found.client, secretHash: found.client.secretHash.slice(0, 10) } } : found,
                );
            };
          },
        });
      t = await startFrozenService(backend, { at: Date.now() }, { wrapStore });
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

    it('takes the Authorization header as the HTTP parser leaves it: without the spaces and tabs around it, with a no-break space', async () => {
      /** A token request written byte for byte (the header value in latin1, as HTTP/1.1 carries it), read back on close. */
      const raw = (authorization: string) =>
        new Promise<{ status: number; body: any }>((resolve, reject) => {
          const { hostname, port } = new URL(t.url);
          const body = 'grant_type=client_credentials';
          const socket = connect(Number(port), hostname, () => {
            const head = `POST /oauth2/tokens HTTP/1.1\r\nHost: ${hostname}\r\nConnection: close\r\nAuthorization: ${authorization}\r\n`;
            socket.write(Buffer.from(`${head}Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\n\r\n${body}`, 'latin1'));
          });
          const chunks: Buffer[] = [];
          socket.on('data', (chunk: Buffer) => chunks.push(chunk));
          socket.on('error', reject);
          socket.on('end', () => {
            const [head, text] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n') as [string, string];
            resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(text) });
          });
        });
      assert.equal((await raw(` \t${basic()} \t`)).status, 200);
      // U+00A0 is no HTTP whitespace (RFC 9110 §5.6.3): it is part of the value, which is then not Basic.
      const nbsp = await raw(`${basic()}\u00a0`);
      assert.deepEqual(
        [nbsp.status, nbsp.body.error, nbsp.body.error_description],
        [401, 'invalid_client', 'the Authorization header must be HTTP Basic with the client id and secret'],
      );
    });

    it('refuses Basic credentials without the colon between client_id and client_secret', async () => {
      challenged(await request(`Basic ${base64(`${client.id}${client.secret}`)}`), 'the Basic credentials must be client_id:client_secret');
    });

    it('looks up no client for an empty client_id, one over 64 characters or one with U+0000, and refuses them as unknown clients', async () => {
      const refused = async (id: string) => {
        lookedUp.length = 0;
        challenged(await request(`Basic ${base64(`${encodeURIComponent(id)}:${client.secret}`)}`), 'client authentication failed');
        return [...lookedUp];
      };
      assert.deepEqual(await refused(''), []);
      assert.deepEqual(await refused('c'.repeat(65)), []);
      assert.deepEqual(await refused(`${client.id}\u0000`), []);
      assert.deepEqual(await refused(`cli_\u0000${'c'.repeat(20)}`), []);
      // 64 characters is the longest id that is looked up.
      assert.deepEqual(await refused('c'.repeat(64)), ['c'.repeat(64)]);
    });

    it('refuses Basic credentials that are not valid form encoding (RFC 6749 §2.3.1), in the id as in the secret', async () => {
      const description = 'the Basic credentials are not valid form encoding';
      challenged(await request(`Basic ${base64(`${client.id}%zz:${client.secret}`)}`), description);
      challenged(await request(`Basic ${base64(`${client.id}:${client.secret}%E0%A4%A`)}`), description);
    });

    it('decodes a "+" in Basic credentials as a space (RFC 6749 §2.3.1), so a secret with "+" appended is another secret', async () => {
      challenged(await request(`Basic ${base64(`${client.id}:${client.secret}+`)}`), 'client authentication failed');
      challenged(await request(`Basic ${base64(`${client.id}+:${client.secret}`)}`), 'client authentication failed');
    });

    it('refuses, and does not fail, a client whose stored secret hash is of another length (a hash of another scheme)', async () => {
      shortHashOf = client.id;
      try {
        challenged(await request(basic()), 'client authentication failed');
      } finally {
        shortHashOf = undefined;
      }
      assert.equal((await request(basic())).status, 200);
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
