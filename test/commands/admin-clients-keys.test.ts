import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { type AdminCli, CLI_OPERATOR, startAdminCli } from '../helpers/admin-cli.ts';
import { backends } from '../helpers/backends.ts';
import { EXCHANGE, oauthPost, token } from '../helpers/oauth.ts';

for (const backend of backends()) {
  describe(`tessera admin: OAuth2 clients, API keys and connections, on ${backend.name}`, () => {
    let cli: AdminCli;
    before(async () => {
      cli = await startAdminCli(backend);
    });
    after(() => cli.close());

    /** Every audit event of the organisation as text, to look for secrets in. */
    const auditText = async () => JSON.stringify((await cli.t.call('GET', '/audit/events?limit=100', { as: cli.org })).body.result);

    it('registers a client whose printed secret works at the token endpoint; rotates and deletes it; each audited with operator cli', async () => {
      const created = await cli.admin([
        'create-client',
        '--org',
        'Acme',
        '--name',
        'orders',
        '--grant-type',
        'client_credentials',
        '--grant-type',
        'token-exchange',
        '--scope',
        'orders:read',
        '--access-token-format',
        'jwt',
        '--json',
      ]);
      assert.equal(created.code, 0, created.stderr);
      const client = JSON.parse(created.stdout);
      assert.deepEqual(
        { ...client, client_id: '…', client_secret: '…', created_at: '…' },
        {
          client_id: '…',
          client_name: 'orders',
          scopes: ['orders:read'],
          grant_types: ['client_credentials', EXCHANGE],
          access_token_duration: 3600,
          access_token_format: 'jwt',
          token_endpoint_auth_method: 'client_secret_basic',
          created_at: '…',
          client_secret: '…',
        },
      );
      const first = { id: client.client_id, secret: client.client_secret };
      assert.equal((await token(cli.t, { grant_type: 'client_credentials' }, first)).status, 200, 'the printed secret works');
      const { client_secret: _, ...shown } = client;
      assert.deepEqual(JSON.parse((await cli.admin(['list-clients', '--org', 'Acme', '--json'])).stdout), [shown], 'as the API shows it');
      assert.match(
        (await cli.admin(['list-clients', '--org', 'Acme'])).stdout,
        /^CLIENT ID +NAME +GRANT TYPES +SCOPES +TOKENS +AUTHENTICATION\ncli_\w+ {2}orders {2}client_credentials, token-exchange {2}orders:read {2}jwt, 3600 s {2}client_secret_basic\n$/,
      );

      const rotated = await cli.admin(['rotate-client-secret', '--org', 'Acme', '--client', first.id]);
      assert.equal(rotated.code, 0, rotated.stderr);
      const secret = /client secret: +(tcs_\S+)\n/.exec(rotated.stdout)?.[1];
      assert.ok(secret && secret !== first.secret, rotated.stdout);
      assert.equal((await token(cli.t, { grant_type: 'client_credentials' }, first)).status, 401, 'the old secret is refused');
      assert.equal((await token(cli.t, { grant_type: 'client_credentials' }, { id: first.id, secret })).status, 200);

      const deleted = await cli.admin(['delete-client', '--org', 'Acme', '--client', first.id]);
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.equal((await token(cli.t, { grant_type: 'client_credentials' }, { id: first.id, secret })).status, 401);
      const again = await cli.admin(['delete-client', '--org', 'Acme', '--client', first.id]);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /--client: no OAuth2 client of this organisation has the id "cli_\w+"/);

      for (const type of ['client.created', 'client.secret_rotated', 'client.deleted']) {
        const [event] = await cli.events(type);
        assert.deepEqual(
          { client_id: event?.data.client_id, operator: event?.data.operator, os_user: event?.data.os_user },
          { client_id: first.id, ...CLI_OPERATOR },
          type,
        );
      }
      const audit = await auditText();
      for (const printed of [first.secret, secret]) assert.ok(!audit.includes(printed), 'no secret in the audit log');
    });

    it('refuses a client the API would refuse, naming each option and the rule (exit 2)', async () => {
      const refused = await cli.admin([
        'create-client',
        '--org',
        'Acme',
        '--name',
        'x',
        '--grant-type',
        'password',
        '--access-token-duration',
        '30',
        '--scope',
        'a b',
      ]);
      assert.equal(refused.code, 2);
      assert.match(refused.stderr, /--grant-type: must be one of client_credentials, urn:ietf:params:oauth:grant-type:token-exchange/);
      assert.match(refused.stderr, /--access-token-duration: must be >= 60/);
      assert.match(refused.stderr, /--scope: must match/);
      const noGrant = await cli.admin(['create-client', '--org', 'Acme', '--name', 'x']);
      assert.equal(noGrant.code, 2);
      assert.match(noGrant.stderr, /--grant-type: is required/);
      const notANumber = await cli.admin([
        'create-client',
        '--org',
        'Acme',
        '--name',
        'x',
        '--grant-type',
        'client_credentials',
        '--access-token-duration',
        'soon',
      ]);
      assert.match(notANumber.stderr, /--access-token-duration: must be an integer/);
      assert.deepEqual((await cli.t.call('GET', '/oauth2/clients', { as: cli.org })).body.result, [], 'nothing written');
    });

    it('registers a private_key_jwt client from --jwks-file: no secret printed, its assertion works; a bad file is named', async () => {
      const createKeyed = (name: string, file: string) =>
        cli.admin(['create-client', '--org', 'Acme', '--name', name, '--grant-type', 'client_credentials', '--jwks-file', file]);
      const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
      const directory = mkdtempSync(join(tmpdir(), 'tessera-jwks-'));
      try {
        const file = join(directory, 'keys.json');
        writeFileSync(file, JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'k1' }] }));
        const created = await createKeyed('keyed', file);
        assert.equal(created.code, 0, created.stderr);
        assert.match(created.stdout, /authentication: +private_key_jwt, keys k1\n/);
        assert.doesNotMatch(created.stdout, /tcs_/);
        const id = /client id: +(cli_\w+)/.exec(created.stdout)![1]!;
        const assertion = await new SignJWT({ jti: randomUUID() })
          .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
          .setIssuer(id)
          .setSubject(id)
          .setAudience(cli.t.service.issuer)
          .setExpirationTime('2m')
          .sign(privateKey);
        const answer = await oauthPost(cli.t, '/oauth2/tokens', {
          grant_type: 'client_credentials',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: assertion,
        });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        writeFileSync(file, '{"keys": [');
        const notJson = await createKeyed('x', file);
        assert.match(notJson.stderr, /--jwks-file: .*keys\.json is not JSON; it must hold a JWK Set/);
        const missing = await createKeyed('x', join(directory, 'none.json'));
        assert.match(missing.stderr, /--jwks-file: cannot read .*none\.json \(ENOENT\)/);
        writeFileSync(file, JSON.stringify({ keys: [{ ...(await exportJWK(privateKey)), kid: 'k1' }] }));
        const privateGiven = await createKeyed('x', file);
        assert.notEqual(privateGiven.code, 0);
        assert.match(privateGiven.stderr, /--jwks-file: keys\[0\]\.d must not be given: register the public key only/);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    });

    it('creates keys that work as their kind allows, revokes by name, and never the last admin key', async () => {
      const own = await startAdminCli(backend, 'Keys');
      try {
        const integration = await own.admin(['create-api-key', '--org', 'Keys', '--name', 'crm', '--kind', 'integration']);
        assert.equal(integration.code, 0, integration.stderr);
        const integrationKey = /^Created integration API key "crm" in "Keys"\n {2}key id: {3}key_\w+\n {2}api key: {2}(tsi_\S+)\n/.exec(
          integration.stdout,
        )?.[1];
        assert.ok(integrationKey, integration.stdout);
        const admin = JSON.parse((await own.admin(['create-api-key', '--org', 'Keys', '--name', 'ops', '--kind', 'admin', '--json'])).stdout);
        assert.match(admin.api_key, /^tsk_/);
        const as = (key: string) => ({ 'service-orgid': own.org.orgId, 'service-api-key': key });
        assert.equal((await own.t.call('GET', '/persons', { as: as(admin.api_key) })).status, 200);
        assert.equal((await own.t.call('GET', '/persons', { as: as(integrationKey) })).status, 403, 'an integration key manages nothing');
        const taken = await own.admin(['create-api-key', '--org', 'Keys', '--name', 'ops', '--kind', 'admin']);
        assert.equal(taken.code, 1);
        assert.match(taken.stderr, /--name: this organisation already has an API key with this name/);
        const kind = await own.admin(['create-api-key', '--org', 'Keys', '--name', 'x', '--kind', 'root']);
        assert.equal(kind.code, 2);
        assert.match(kind.stderr, /--kind: must be one of admin, integration/);

        assert.equal((await own.admin(['revoke-api-key', '--org', 'Keys', '--key', 'first-admin-key'])).code, 0);
        assert.equal((await own.t.call('GET', '/persons', { as: own.org })).status, 401, 'the revoked key stops working');
        const last = await own.admin(['revoke-api-key', '--org', 'Keys', '--key', admin.id]);
        assert.equal(last.code, 1);
        assert.match(last.stderr, /--key: is the organisation's last admin key; create another admin key before revoking this one/);
        assert.equal((await own.t.call('GET', '/persons', { as: as(admin.api_key) })).status, 200, 'the last admin key stays');

        const events = (await own.t.call('GET', '/audit/events?limit=100', { as: as(admin.api_key) })).body.result as { type: string; data: any }[];
        assert.deepEqual(
          events.filter((e) => e.type.startsWith('api_key.')).map((e) => [e.type, e.data.name ?? e.data.key_id, e.data.operator]),
          [
            ['api_key.created', 'crm', 'cli'],
            ['api_key.created', 'ops', 'cli'],
            ['api_key.revoked', events.find((e) => e.type === 'organization.created')!.data.first_key_id, 'cli'],
          ],
        );
        assert.ok(!JSON.stringify(events).includes(admin.api_key), 'no key in the audit log');
      } finally {
        await own.close();
      }
    });

    it('connects a SCIM directory whose printed token the SCIM server accepts, and a pulled one whose bearer token is read from a file and never shown', async () => {
      const scim = await cli.admin(['create-connection', '--org', 'Acme', '--name', 'entra', '--type', 'scim', '--json'], {
        TESSERA_ISSUER: 'https://id.acme.example',
      });
      assert.equal(scim.code, 0, scim.stderr);
      const connection = JSON.parse(scim.stdout);
      assert.equal(connection.scim_url, 'https://id.acme.example/scim/v2');
      const users = await fetch(`${cli.t.url}/scim/v2/Users`, { headers: { authorization: `Bearer ${connection.scim_token}` } });
      assert.equal(users.status, 200, 'the printed token works');

      const directory = mkdtempSync(join(tmpdir(), 'tessera-bearer-'));
      after(() => rmSync(directory, { recursive: true, force: true }));
      const file = join(directory, 'bearer-token');
      writeFileSync(file, 'provider-bearer-token-value\n', { mode: 0o600 });
      const pull = [
        'create-connection',
        '--org',
        'Acme',
        '--name',
        'okta',
        '--type',
        'scim_pull',
        '--base-url',
        'http://127.0.0.1:9/scim/v2',
        '--bearer-token-file',
        file,
      ];
      const https = await cli.admin(pull);
      assert.equal(https.code, 2, 'loopback http only in development mode, as in the API');
      assert.match(https.stderr, /--base-url: http is allowed for loopback only when the service runs with TESSERA_DEV=1; use https/);
      const pulled = await cli.admin(pull, { TESSERA_DEV: '1' });
      assert.equal(pulled.code, 0, pulled.stderr);
      assert.match(pulled.stdout, /^Created scim_pull connection "okta" \(con_\w+\) in "Acme"\n {2}base URL: {2}http:\/\/127\.0\.0\.1:9\/scim\/v2\n$/);
      const noFile = await cli.admin([...pull.slice(0, -1), `${file}.missing`], { TESSERA_DEV: '1' });
      assert.equal(noFile.code, 2);
      assert.match(noFile.stderr, /--bearer-token-file: cannot read ".*\.missing" \(ENOENT\)/);
      const misplaced = await cli.admin(['create-connection', '--org', 'Acme', '--name', 'x', '--type', 'scim', '--base-url', 'https://idp.example']);
      assert.equal(misplaced.code, 2);
      assert.match(misplaced.stderr, /--base-url: is only for type scim_pull/);

      const created = (await cli.events('connection.created')).map((e) => e.data);
      assert.deepEqual(
        created.map(({ name, type, operator, os_user }) => ({ name, type, operator, os_user })),
        [
          { name: 'entra', type: 'scim', ...CLI_OPERATOR },
          { name: 'okta', type: 'scim_pull', ...CLI_OPERATOR },
        ],
      );
      const audit = await auditText();
      for (const secret of [connection.scim_token, 'provider-bearer-token-value']) assert.ok(!audit.includes(secret), 'no token in the audit log');
      assert.ok(!`${pulled.stdout}${pulled.stderr}`.includes('provider-bearer-token-value'), 'the bearer token is never printed');
    });
  });
}
