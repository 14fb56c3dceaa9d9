import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { KeyRing, RELOAD_INTERVAL_MS } from '../../src/oauth/keys/key-ring.ts';
import { openStore } from '../../src/store/open-store.ts';
import { runCli } from '../helpers/cli.ts';
import {
  type ClientCredentials,
  claims,
  clientToken,
  createPerson,
  EXCHANGE,
  introspect,
  JWT_TYPE,
  mintPersonToken,
  oauthPost,
  registerClient,
  token,
} from '../helpers/oauth.ts';
import { createOrg, type FreshDatabase, freshDatabase, postgresServerUrl, type Replica, startReplicas } from '../helpers/replicas.ts';
import { TEST_SECRET, type TestOrg } from '../helpers/service.ts';

const server = postgresServerUrl();
/** How often the key-rotation test asks each replica which key it signs with. */
const POLL_MS = 250;

if (server) {
  describe('Two service processes on one PostgreSQL: what one changes, the other honours', () => {
    let database: FreshDatabase;
    let a: Replica;
    let b: Replica;
    let org: TestOrg;
    let client: ClientCredentials;

    before(async () => {
      database = await freshDatabase(server);
      [a, b] = (await startReplicas(2, { databaseUrl: database.url })) as [Replica, Replica];
      org = await createOrg(database.url);
      client = await registerClient(a.t, org);
    });
    after(async () => {
      await Promise.all([a, b].map((replica) => replica?.kill('SIGKILL')));
      await database?.drop();
    });

    /** An opaque token of `client` for a new person, exchanged on `on`. */
    const delegated = async (on: Replica) => {
      const person = await createPerson(a.t, org);
      const subject = await mintPersonToken(b.t, org, person, { scope: 'orders:read' });
      const response = await token(on.t, { grant_type: EXCHANGE, subject_token: subject, subject_token_type: JWT_TYPE }, client);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return { person, subject, opaque: response.body.access_token as string };
    };
    const passkeyOptions = (on: Replica) => on.t.call('POST', '/authn/webauthn/options', { as: { 'service-orgid': org.orgId }, body: {} });
    const active = async (on: Replica, value: string) => (await introspect(on.t, value, org)).body.active as boolean;

    it('applies an organisation configuration changed on one replica to the very next request on the other', async () => {
      // Nothing of an organisation is cached in a process (docs/configuration.md): the bound is zero.
      for (let i = 0; i < 6; i++) {
        const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
        const ceiling = 300 + 60 * i;
        const patched = await writer.t.call('PATCH', '/organizations/config', { as: org, body: { token_lifetime_ceiling: ceiling } });
        assert.equal(patched.status, 200, JSON.stringify(patched.body));
        const issued = await token(reader.t, { grant_type: 'client_credentials' }, client);
        assert.equal(issued.body.expires_in, ceiling, `change ${i}, read on the other replica`);
      }
      const unconfigured = await passkeyOptions(b);
      assert.equal(unconfigured.status, 409, JSON.stringify(unconfigured.body));
      const configured = await a.t.call('PATCH', '/organizations/config', {
        as: org,
        body: { webauthn_rp_id: 'example.com', webauthn_origins: ['https://login.example.com'] },
      });
      assert.equal(configured.status, 200, JSON.stringify(configured.body));
      const afterwards = await passkeyOptions(b);
      assert.equal(afterwards.status, 200, JSON.stringify(afterwards.body));
      assert.equal(afterwards.body.result.options.rpId, 'example.com');
    });

    it('sees a token revoked on one replica as revoked on the other at once, with the tokens exchanged from it', async () => {
      const { opaque: root } = await delegated(a);
      const child = await token(
        b.t,
        { grant_type: EXCHANGE, subject_token: root, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' },
        client,
      );
      assert.equal(child.status, 200, JSON.stringify(child.body));
      assert.deepEqual([await active(b, root), await active(b, child.body.access_token)], [true, true], 'both were live on the other replica');

      const revoked = await oauthPost(a.t, '/oauth2/tokens/revoke', { token: root }, client);
      assert.equal(revoked.status, 200);
      assert.deepEqual([await active(b, root), await active(b, child.body.access_token)], [false, false]);
      const reused = await token(
        b.t,
        { grant_type: EXCHANGE, subject_token: child.body.access_token, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' },
        client,
      );
      assert.equal(reused.status, 400);
      assert.equal(reused.body.error, 'invalid_request');
      assert.match(reused.body.error_description, /revoked/);
    });

    it('refuses on one replica a client deleted on the other, and its tokens', async () => {
      const doomed = await registerClient(a.t, org, { client_name: 'doomed' });
      const own = await clientToken(b.t, doomed);
      assert.equal(await active(b, own), true);
      assert.equal((await a.t.call('DELETE', `/oauth2/clients/${doomed.id}`, { as: org })).status, 204);
      assert.equal(await active(b, own), false);
      const again = await token(b.t, { grant_type: 'client_credentials' }, doomed);
      assert.equal(again.status, 401);
      assert.equal(again.body.error, 'invalid_client');
    });

    it('refuses on one replica the tokens of a person deleted on the other', async () => {
      const { person, subject, opaque } = await delegated(b);
      assert.deepEqual([await active(b, subject), await active(b, opaque)], [true, true]);
      assert.equal((await a.t.call('DELETE', `/persons/${person}`, { as: org })).status, 204);
      assert.deepEqual([await active(b, subject), await active(b, opaque)], [false, false]);
      const exchanged = await token(b.t, { grant_type: EXCHANGE, subject_token: subject, subject_token_type: JWT_TYPE }, client);
      assert.equal(exchanged.status, 400);
      assert.match(exchanged.body.error_description, /no longer exists/);
    });

    it('refuses on one replica an API key deleted on the other', async () => {
      const created = await a.t.call('POST', '/organizations/api-keys', { as: org, body: { name: 'short-lived', kind: 'admin' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const key = { 'service-orgid': org.orgId, 'service-api-key': created.body.result.api_key };
      assert.equal((await b.t.call('GET', '/persons', { as: key })).status, 200);
      assert.equal((await a.t.call('DELETE', `/organizations/api-keys/${created.body.result.id}`, { as: org })).status, 204);
      assert.equal((await b.t.call('GET', '/persons', { as: key })).status, 401);
    });

    it('holds an opaque subject to its client on both replicas, under 50 concurrent exchanges', async () => {
      const { opaque } = await delegated(a);
      const stranger = await registerClient(b.t, org, { client_name: 'stranger' });
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          token(
            [a, b][i % 2]!.t,
            { grant_type: EXCHANGE, subject_token: opaque, subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' },
            i % 4 < 2 ? client : stranger,
          ),
        ),
      );
      const outcomes = answers.map((answer, i) => `${i % 4 < 2 ? 'owner' : 'stranger'} ${answer.status} ${answer.body.error ?? ''}`.trim());
      assert.deepEqual(
        outcomes,
        Array.from({ length: 50 }, (_, i) => (i % 4 < 2 ? 'owner 200' : 'stranger 400 invalid_request')),
      );
    });

    /** The kid each replica signs with now, as /readyz reports it. */
    const signingKeys = async () => Promise.all([a, b].map(async (replica) => (await replica.t.call('GET', '/readyz')).body.result.signing_key as string));

    it(`signs with a key rotated by "tessera admin rotate-keys" on every replica within RELOAD_INTERVAL_MS (${RELOAD_INTERVAL_MS} ms)`, async (t) => {
      const [first, second] = await signingKeys();
      assert.equal(first, second, 'one active key before the rotation');
      const rotation = await runCli(['admin', 'rotate-keys'], { DATABASE_URL: database.url, TESSERA_SECRET: TEST_SECRET });
      assert.equal(rotation.code, 0, rotation.stderr);
      const rotatedAt = Date.now();
      const next = /New signing key (\S+) is active/.exec(rotation.stdout)?.[1];
      assert.ok(next && next !== first, rotation.stdout);

      // Only /readyz is asked meanwhile: a token of the new key shown to a replica would make it reload early.
      // Per replica: when the last ask that still saw the old key, and the first that saw the new one, began.
      const lastOld = [0, 0];
      const firstNew: (number | undefined)[] = [undefined, undefined];
      while (firstNew.includes(undefined) && Date.now() - rotatedAt <= RELOAD_INTERVAL_MS + 5_000) {
        const askedAt = Date.now() - rotatedAt;
        (await signingKeys()).forEach((kid, i) => {
          if (kid === next) firstNew[i] ??= askedAt;
          else if (firstNew[i] === undefined) lastOld[i] = askedAt;
        });
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
      t.diagnostic(
        `old key last seen ${lastOld.join(' / ')} ms, new key first seen ${firstNew.join(' / ')} ms after the rotation (bound ${RELOAD_INTERVAL_MS} ms)`,
      );
      assert.ok(!firstNew.includes(undefined), 'both replicas switched');
      // The bound: no request that began more than RELOAD_INTERVAL_MS after the rotation saw the old key.
      for (const seen of lastOld) assert.ok(seen <= RELOAD_INTERVAL_MS, `old key seen ${lastOld.join(', ')} ms after the rotation`);
      for (const replica of [a, b]) {
        const { keys } = (await replica.t.call('GET', '/.well-known/jwks.json')).body as { keys: { kid: string }[] };
        assert.deepEqual(keys.map((k) => k.kid).sort(), [first, next].sort(), 'the retired key stays published');
      }

      // A token of a key rotated just now, signed by a process that already uses it, verifies on both at once.
      const rotatedAgain = await runCli(['admin', 'rotate-keys'], { DATABASE_URL: database.url, TESSERA_SECRET: TEST_SECRET });
      assert.equal(rotatedAgain.code, 0, rotatedAgain.stderr);
      const minted = claims(await mintPersonToken(a.t, org, await createPerson(a.t, org)));
      const { store } = await openStore(database.url, { poolSize: 1 });
      try {
        const newest = await new KeyRing(store, TEST_SECRET).signingKey();
        const resigned = await new SignJWT(minted).setProtectedHeader({ alg: 'ES256', kid: newest.kid, typ: 'at+jwt' }).sign(newest.privateKey);
        assert.deepEqual([await active(a, resigned), await active(b, resigned)], [true, true]);
        assert.deepEqual(await signingKeys(), [newest.kid, newest.kid], 'meeting the unknown kid made each reload at once');
      } finally {
        await store.close();
      }
    });
  });
}
