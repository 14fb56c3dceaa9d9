import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type AdminCli, CLI_OPERATOR, startAdminCli } from '../helpers/admin-cli.ts';
import { backends } from '../helpers/backends.ts';
import { type ClientKey, clientKey, signAssertion } from '../helpers/client-jwks-server.ts';
import { oauthPost, token } from '../helpers/oauth.ts';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const SPIFFE_ID = 'spiffe://acme.example/ns/orders/sa/api';

for (const backend of backends()) {
  describe(`tessera admin: clients without a secret (--jwks-uri, --spiffe-id) and set-client-auth, on ${backend.name}`, () => {
    let cli: AdminCli;
    let directory: string;
    let key: ClientKey;
    let keysFile: string;
    before(async () => {
      cli = await startAdminCli(backend);
      directory = mkdtempSync(join(tmpdir(), 'tessera-client-auth-'));
      key = await clientKey('k1');
      keysFile = join(directory, 'keys.json');
      writeFileSync(keysFile, JSON.stringify({ keys: [key.jwk] }));
    });
    after(async () => {
      await cli.close();
      rmSync(directory, { recursive: true, force: true });
    });

    const createClient = (name: string, more: string[], env?: Record<string, string>) =>
      cli.admin(['create-client', '--org', 'Acme', '--name', name, '--grant-type', 'client_credentials', ...more], env);
    const setAuth = (client: string, more: string[], env?: Record<string, string>) =>
      cli.admin(['set-client-auth', '--org', 'Acme', '--client', client, ...more], env);
    /** The organisation's clients as the API shows them. */
    const clients = async () => (await cli.t.call('GET', '/oauth2/clients?limit=100', { as: cli.org })).body.result as Record<string, unknown>[];
    const clientNamed = async (name: string) => (await clients()).find((client) => client.client_name === name);
    const withKey = async (id: string) =>
      oauthPost(cli.t, '/oauth2/tokens', {
        grant_type: 'client_credentials',
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await signAssertion(key, id, cli.t.service.issuer, Date.now()),
      });
    const auditText = async () => JSON.stringify((await cli.t.call('GET', '/audit/events?limit=100', { as: cli.org })).body.result);

    it('registers a private_key_jwt client from --jwks-uri and a spiffe_jwt client from --spiffe-id: no secret printed, listed with its method', async () => {
      const uri = 'https://keys.orders.example/jwks.json';
      const byUri = await createClient('by-uri', ['--jwks-uri', uri]);
      assert.equal(byUri.code, 0, byUri.stderr);
      assert.match(byUri.stdout, /\n {2}authentication: {2}private_key_jwt, keys from https:\/\/keys\.orders\.example\/jwks\.json\n/);
      assert.match(byUri.stdout, /It has no secret: it signs a client assertion with its private key\./);
      const bySpiffe = await createClient('by-spiffe', ['--spiffe-id', SPIFFE_ID, '--json']);
      assert.equal(bySpiffe.code, 0, bySpiffe.stderr);
      const shown = JSON.parse(bySpiffe.stdout);
      assert.equal(shown.client_secret, undefined, 'no secret in the JSON');
      for (const printed of [byUri.stdout, bySpiffe.stdout]) assert.doesNotMatch(printed, /tcs_|client.secret/);

      const registered = { uri: await clientNamed('by-uri'), spiffe: await clientNamed('by-spiffe') };
      assert.deepEqual(
        [registered.uri?.token_endpoint_auth_method, registered.uri?.jwks_uri, registered.uri?.spiffe_id],
        ['private_key_jwt', uri, undefined],
        'the API shows it with its method and where its keys are',
      );
      assert.deepEqual(registered.spiffe, { ...shown, token_endpoint_auth_method: 'spiffe_jwt', spiffe_id: SPIFFE_ID }, 'as printed, with its SPIFFE ID');
      const listed = (await cli.admin(['list-clients', '--org', 'Acme'])).stdout;
      assert.match(listed, /\ncli_\w+ {2}by-uri .* {2}private_key_jwt\n/);
      assert.match(listed, /\ncli_\w+ {2}by-spiffe .* {2}spiffe_jwt\n/);
      const events = (await cli.events('client.created')).map((e) => e.data);
      assert.deepEqual(
        events.map(({ client_name, token_endpoint_auth_method, operator, os_user }) => ({
          client_name,
          token_endpoint_auth_method,
          operator,
          os_user,
        })),
        [
          { client_name: 'by-uri', token_endpoint_auth_method: 'private_key_jwt', ...CLI_OPERATOR },
          { client_name: 'by-spiffe', token_endpoint_auth_method: 'spiffe_jwt', ...CLI_OPERATOR },
        ],
      );
    });

    it('allows a loopback http --jwks-uri only with TESSERA_DEV=1, whether or not TESSERA_SECRET is given', async () => {
      const loopback = ['--jwks-uri', 'http://127.0.0.1:9/jwks.json'];
      for (const env of [{}, { TESSERA_SECRET: '' }] as Record<string, string>[]) {
        const refused = await createClient('loopback', loopback, env);
        assert.equal(refused.code, 2, JSON.stringify(env));
        assert.match(
          refused.stderr,
          /^tessera admin create-client: --jwks-uri: http is allowed for loopback only when the service runs with TESSERA_DEV=1; use https\n$/,
        );
      }
      assert.equal(await clientNamed('loopback'), undefined, 'nothing created');
      const accepted = await createClient('loopback', loopback, { TESSERA_DEV: '1', TESSERA_SECRET: '' });
      assert.equal(accepted.code, 0, accepted.stderr);
      assert.equal((await clientNamed('loopback'))?.jwks_uri, 'http://127.0.0.1:9/jwks.json');
    });

    it("refuses what the service's rules refuse, naming the option, the rule and the key of the file; nothing is created", async () => {
      const before = await clients();
      const refusals: [string[], RegExp][] = [
        [['--jwks-file', keysFile, '--jwks-uri', 'https://keys.orders.example/jwks.json'], /--jwks-file, --jwks-uri: give only one of these/],
        [['--jwks-uri', 'https://keys.orders.example/jwks.json', '--spiffe-id', SPIFFE_ID], /--jwks-uri, --spiffe-id: give only one of these/],
        [['--jwks-uri', 'https://169.254.169.254/latest/meta-data'], /--jwks-uri: must not name or resolve to a loopback, private \(RFC 1918\), link-local/],
        [['--jwks-uri', 'https://keys.orders.example/jwks.json#k1'], /--jwks-uri: must not carry a fragment or credentials/],
        [['--jwks-uri', 'ftp://keys.orders.example/jwks.json'], /--jwks-uri: must use https/],
        [
          ['--spiffe-id', 'spiffe://Acme.Example/orders'],
          /--spiffe-id: must be a workload's SPIFFE ID \(spiffe:\/\/trust-domain\/path, lower-case trust domain/,
        ],
        [['--spiffe-id', 'https://acme.example/orders'], /--spiffe-id: must be a workload's SPIFFE ID/],
      ];
      for (const [options, message] of refusals) {
        const refused = await createClient('refused', options);
        assert.equal(refused.code, 2, `${options.join(' ')}: ${refused.stderr}`);
        assert.match(refused.stderr, message, options.join(' '));
        assert.doesNotMatch(refused.stderr, /body\./, 'named by its option, not the API field');
      }
      const badKeys = join(directory, 'bad-keys.json');
      writeFileSync(badKeys, JSON.stringify({ keys: [key.jwk, { kty: 'oct', kid: 'k2' }] }));
      const badKey = await createClient('refused', ['--jwks-file', badKeys]);
      assert.equal(badKey.code, 2);
      assert.match(badKey.stderr, /--jwks-file: keys\[1\]\.kty must be an EC key on P-256, an OKP key on Ed25519 or an RSA key\n/);
      writeFileSync(badKeys, JSON.stringify({ keys: [key.jwk, { ...key.jwk, x: 5 }] }));
      assert.match((await createClient('refused', ['--jwks-file', badKeys])).stderr, /--jwks-file: keys\[1\]\.x must be a string/);
      writeFileSync(badKeys, JSON.stringify({ keys: [key.jwk, key.jwk] }));
      assert.match((await createClient('refused', ['--jwks-file', badKeys])).stderr, /--jwks-file: keys\[1\]\.kid must differ from every other key/);
      assert.deepEqual(await clients(), before, 'nothing created');
    });

    it('switches a client between its secret, a JWK Set and a SPIFFE ID; a secret is printed only when it is new; audited with operator cli', async () => {
      const created = JSON.parse((await createClient('switching', ['--json'])).stdout);
      const id: string = created.client_id;
      const first = { id, secret: created.client_secret as string };

      const toPost = await setAuth(id, ['--secret-post']);
      assert.equal(toPost.code, 0, toPost.stderr);
      assert.equal(toPost.stdout, `OAuth2 client ${id} now authenticates with client_secret_post; it keeps its secret, which both secret methods accept.\n`);
      const posted = await oauthPost(cli.t, '/oauth2/tokens', { grant_type: 'client_credentials', client_id: id, client_secret: first.secret });
      assert.equal(posted.status, 200, 'the same secret works in the form');

      const toKeys = await setAuth(id, ['--jwks-file', keysFile]);
      assert.equal(toKeys.code, 0, toKeys.stderr);
      assert.match(
        toKeys.stdout,
        new RegExp(`^OAuth2 client ${id} now authenticates with private_key_jwt\\n {2}authentication: {2}private_key_jwt, keys k1\\n`),
      );
      assert.doesNotMatch(toKeys.stdout, /tcs_/);
      assert.equal((await token(cli.t, { grant_type: 'client_credentials' }, first)).status, 401, 'the secret is refused from now on');
      assert.equal((await withKey(id)).status, 200, 'an assertion signed with the key of the file works');

      const toSpiffe = await setAuth(id, ['--spiffe-id', SPIFFE_ID, '--json']);
      assert.equal(toSpiffe.code, 0, toSpiffe.stderr);
      const shown = JSON.parse(toSpiffe.stdout);
      assert.deepEqual([shown.token_endpoint_auth_method, shown.spiffe_id, shown.jwks, shown.client_secret], ['spiffe_jwt', SPIFFE_ID, undefined, undefined]);
      assert.equal((await withKey(id)).status, 401, 'the keys it had are refused');

      const toBasic = await setAuth(id, ['--secret-basic']);
      assert.equal(toBasic.code, 0, toBasic.stderr);
      const secret = /\n {2}client secret: {2}(tcs_\S+)\n/.exec(toBasic.stdout)?.[1];
      assert.ok(secret && secret !== first.secret, toBasic.stdout);
      assert.match(toBasic.stdout, /The secret is shown only now/);
      assert.equal((await token(cli.t, { grant_type: 'client_credentials' }, { id, secret })).status, 200, 'the printed secret works');
      assert.equal((await token(cli.t, { grant_type: 'client_credentials' }, first)).status, 401, 'the first one stays refused');

      const changes = (await cli.events('client.authentication_changed')).map((e) => e.data);
      assert.deepEqual(
        changes.map(({ client_id, from, token_endpoint_auth_method, operator, os_user }) => ({
          client_id,
          from,
          token_endpoint_auth_method,
          operator,
          os_user,
        })),
        [
          ['client_secret_basic', 'client_secret_post'],
          ['client_secret_post', 'private_key_jwt'],
          ['private_key_jwt', 'spiffe_jwt'],
          ['spiffe_jwt', 'client_secret_basic'],
        ].map(([from, to]) => ({ client_id: id, from, token_endpoint_auth_method: to, ...CLI_OPERATOR })),
      );
      const audit = await auditText();
      for (const printed of [first.secret, secret]) assert.ok(!audit.includes(printed), 'no secret in the audit log');
    });

    it('refuses a switch without one method, with two, against the rules or to no such client; the client is left as it was', async () => {
      const { client_id: id } = JSON.parse((await createClient('kept', ['--json'])).stdout);
      const kept = await clientNamed('kept');
      const none = await setAuth(id, []);
      assert.equal(none.code, 2);
      assert.match(none.stderr, /one of --secret-basic, --secret-post, --jwks-file, --jwks-uri, --spiffe-id is required/);
      const two = await setAuth(id, ['--secret-basic', '--spiffe-id', SPIFFE_ID]);
      assert.equal(two.code, 2);
      assert.match(two.stderr, /--secret-basic, --spiffe-id: give only one of these: a client authenticates one way/);
      const badId = await setAuth(id, ['--spiffe-id', 'spiffe://acme.example/a/../b']);
      assert.equal(badId.code, 2);
      assert.match(badId.stderr, /--spiffe-id: must be a workload's SPIFFE ID/);
      const http = await setAuth(id, ['--jwks-uri', 'http://keys.orders.example/jwks.json']);
      assert.equal(http.code, 2);
      assert.match(http.stderr, /--jwks-uri: must use https/);
      const unknown = await setAuth('cli_none', ['--secret-basic']);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /--client: no OAuth2 client of this organisation has the id "cli_none"/);
      assert.deepEqual(await clientNamed('kept'), kept, 'unchanged');
      assert.ok(!(await cli.events('client.authentication_changed')).some((e) => e.data.client_id === id), 'nothing audited');

      await setAuth(id, ['--spiffe-id', SPIFFE_ID]);
      const rotate = await cli.admin(['rotate-client-secret', '--org', 'Acme', '--client', id]);
      assert.equal(rotate.code, 1);
      assert.match(rotate.stderr, /--client: this client authenticates with spiffe_jwt and has no secret to rotate/);
    });
  });
}
