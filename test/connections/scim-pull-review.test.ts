import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type IdentityDirectory, identityDirectory } from '../../src/connections/identity-directory.ts';
import { connectionSecretBox } from '../../src/connections/sealing.ts';
import { newId } from '../../src/crypto/ids.ts';
import type { ResolveAll } from '../../src/egress/address-policy.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { sendError } from '../../src/http/error-handler.ts';
import { backends } from '../helpers/backends.ts';
import { startTestService, TEST_SECRET, type TestOrg, type TestService } from '../helpers/service.ts';

type Handler = (request: IncomingMessage) => [number, unknown];

/** A fake SCIM provider: a plain HTTP server on port 0 answering whatever the test crafts. */
async function fakeProvider(): Promise<{ url: string; answer: (handler: Handler) => void; asked: string[]; close: () => void }> {
  let handler: Handler = () => [500, {}];
  const asked: string[] = [];
  const server: Server = createServer((request, response: ServerResponse) => {
    asked.push(decodeURIComponent(request.url ?? ''));
    const [status, body] = handler(request);
    response.writeHead(status, { 'content-type': 'application/scim+json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/scim/v2`,
    answer: (h) => {
      handler = h;
    },
    asked,
    close: () => server.close(),
  };
}

const user = (id: string, email: unknown, extra: object = {}) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  id,
  userName: typeof email === 'string' ? email : id,
  active: true,
  emails: [{ type: 'work', primary: true, value: email }],
  ...extra,
});
const list = (...Resources: unknown[]) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
  totalResults: Resources.length,
  Resources,
});
const unavailable = (e: unknown) => (e as { code?: string }).code === 'IDENTITY_SOURCE_UNAVAILABLE' && (e as { status?: number }).status === 503;

for (const backend of backends()) {
  describe(`scim_pull against a crafted provider (issue 12 review) on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let directory: IdentityDirectory;
    let provider: Awaited<ReturnType<typeof fakeProvider>>;
    let connectionId: string;
    before(async () => {
      t = await startTestService(backend, { TESSERA_DEV: '1' });
      org = await t.org();
      directory = identityDirectory(t.service.store, connectionSecretBox(TEST_SECRET), { timeoutMs: 1000, allowLoopback: true });
      provider = await fakeProvider();
      const created = await t.call('POST', '/organizations/connections', {
        as: org,
        body: { name: 'crafted', type: 'scim_pull', base_url: provider.url, bearer_token: 'token' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      connectionId = created.body.result.id;
    });
    after(async () => {
      provider.close();
      await t.close();
    });

    for (const email of [
      'victim@example.com, attacker@evil.test',
      '"victim@example.com" <attacker@evil.test>',
      'victim@example.com\r\nBcc: attacker@evil.test',
    ]) {
      it(`regression: a provider's user whose email is ${JSON.stringify(email)} has no usable email (null), never the raw value`, async () => {
        provider.answer(() => [200, user('u1', email)]);
        const found = await directory.lookup(org.orgId, connectionId, { identityId: 'u1' });
        assert.deepEqual(found && { identityId: found.identityId, email: found.email }, { identityId: 'u1', email: null });
      });
    }

    it('regression: a provider that answers another user than the id asked for fails closed (initiate and deny-gate alike)', async () => {
      provider.answer(() => [200, user('u-other', 'attacker@evil.test')]);
      await assert.rejects(directory.lookup(org.orgId, connectionId, { identityId: 'u-asked' }), unavailable);
      // The id is compared exactly: a case variant is another id.
      provider.answer(() => [200, user('U-ASKED', 'victim@example.com')]);
      await assert.rejects(directory.lookup(org.orgId, connectionId, { identityId: 'u-asked' }), unavailable);
      provider.answer(() => [200, user('u-asked', 'victim@example.com')]);
      assert.equal((await directory.lookup(org.orgId, connectionId, { identityId: 'u-asked' }))?.identityId, 'u-asked');
    });

    it('by email, a user whose own email is not the one asked for never counts', async () => {
      provider.answer(() => [200, list(user('u-other', 'attacker@evil.test'))]);
      assert.equal(await directory.lookup(org.orgId, connectionId, { email: 'victim@example.com' }), undefined);
      // Nor does a user whose email is a list that merely contains the one asked for.
      provider.answer(() => [200, list(user('u-list', 'victim@example.com, attacker@evil.test'))]);
      assert.equal(await directory.lookup(org.orgId, connectionId, { email: 'victim@example.com' }), undefined);
      provider.answer(() => [200, list(user('u-other', 'attacker@evil.test'), user('u-victim', 'Victim@Example.COM'))]);
      const found = await directory.lookup(org.orgId, connectionId, { email: 'victim@EXAMPLE.com' });
      assert.deepEqual(found && [found.identityId, found.email], ['u-victim', 'Victim@Example.COM']);
    });

    it('regression: by email, more than one user holding the address asked for fails closed', async () => {
      provider.answer(() => [200, list(user('u-1', 'victim@example.com'), user('u-2', 'VICTIM@example.com'))]);
      await assert.rejects(directory.lookup(org.orgId, connectionId, { email: 'victim@example.com' }), unavailable);
    });

    it('regression: a provider that omits active (or sends anything but true) is read as inactive, by id and by email', async () => {
      const cases: [unknown, boolean][] = [
        [undefined, false],
        [null, false],
        ['yes', false],
        [1, false],
        ['False', false],
        [false, false],
        ['True', true],
        [true, true],
      ];
      for (const [active, expected] of cases) {
        const { active: _, ...withoutActive } = user('u-a', 'ada@example.com');
        const resource = active === undefined ? withoutActive : { ...withoutActive, active };
        provider.answer((request) => [200, request.url?.includes('filter') ? list(resource) : resource]);
        assert.equal((await directory.lookup(org.orgId, connectionId, { identityId: 'u-a' }))?.active, expected, `active: ${JSON.stringify(active)}`);
        assert.equal((await directory.lookup(org.orgId, connectionId, { email: 'ada@example.com' }))?.active, expected, `active: ${JSON.stringify(active)}`);
      }
    });
  });
}

const GENERIC_503 = 'connection: the identity provider could not be read; retry later';
const forbiddenBaseUrls = [
  'https://127.0.0.1/scim/v2',
  'https://127.1.2.3/scim/v2',
  'https://[::1]/scim/v2',
  'https://localhost/scim/v2',
  'https://localhost./scim/v2',
  'https://scim.localhost/scim/v2',
  'https://169.254.169.254/latest/meta-data',
  'https://10.0.0.1/scim/v2',
  'https://172.16.5.4/scim/v2',
  'https://192.168.1.1/scim/v2',
  'https://100.64.0.1/scim/v2',
  'https://0.0.0.0/scim/v2',
  'https://[::]/scim/v2',
  'https://224.0.0.1/scim/v2',
  'https://[fd00::1]/scim/v2',
  'https://[fe80::1]/scim/v2',
  'https://[ff02::1]/scim/v2',
  'https://[::ffff:169.254.169.254]/scim/v2',
  'https://[64:ff9b::a00:1]/scim/v2',
  'https://0x7f.1/scim/v2',
  'https://2130706433/scim/v2',
];

for (const backend of backends()) {
  describe(`scim_pull base_url SSRF (issue 12 review) on ${backend.name}`, () => {
    let prod: TestService;
    let dev: TestService;
    let provider: Awaited<ReturnType<typeof fakeProvider>>;
    before(async () => {
      prod = await startTestService(backend);
      dev = await startTestService(backend, { TESSERA_DEV: '1' });
      provider = await fakeProvider();
    });
    after(async () => {
      provider.close();
      await prod.close();
      await dev.close();
    });
    const create = (t: TestService, org: TestOrg, base_url: string) =>
      t.call('POST', '/organizations/connections', { as: org, body: { name: `n-${Math.random()}`, type: 'scim_pull', base_url, bearer_token: 'token' } });
    /** A connection stored as if base_url had been acceptable when it was created (DNS answers change). */
    const stored = async (t: TestService, org: TestOrg, baseUrl: string) => {
      const at = Date.now();
      const id = newId('con', at);
      const box = connectionSecretBox(TEST_SECRET);
      await t.service.store.createConnection({
        id,
        orgId: org.orgId,
        name: `s-${Math.random()}`,
        type: 'scim_pull',
        tokenHash: null,
        baseUrl,
        sealedBearerToken: box.seal('token'),
        createdAt: at,
      });
      return id;
    };

    for (const base_url of forbiddenBaseUrls) {
      it(`regression: refuses a scim_pull base_url of ${base_url} outside development mode`, async () => {
        const org = await prod.org();
        const response = await create(prod, org, base_url);
        assert.equal(response.status, 400, JSON.stringify(response.body));
        assert.match(response.body.errors[0].message, /^body\.base_url: must not name or resolve to a loopback, private/);
      });
    }

    it('regression: in development mode loopback is allowed, private and link-local addresses still are not', async () => {
      const org = await dev.org();
      assert.equal((await create(dev, org, provider.url)).status, 201);
      assert.equal((await create(dev, org, 'http://localhost:9/scim/v2')).status, 201);
      for (const url of ['https://10.0.0.1/scim/v2', 'https://169.254.169.254/', 'https://[fd12::1]/']) {
        assert.equal((await create(dev, org, url)).status, 400, url);
      }
    });

    it('regression: the pull client refuses a forbidden address on every connection, whatever was stored, and never asks it', async () => {
      const org = await prod.org();
      const directory = identityDirectory(prod.service.store, connectionSecretBox(TEST_SECRET), { timeoutMs: 1000 });
      const asked = provider.asked.length;
      provider.answer(() => [200, user('u1', 'ada@example.com')]);
      const port = new URL(provider.url).port;
      for (const baseUrl of [provider.url, `http://localhost:${port}/scim/v2`, `http://[::ffff:127.0.0.1]:${port}/scim/v2`]) {
        const id = await stored(prod, org, baseUrl);
        const error = await directory.lookup(org.orgId, id, { identityId: 'u1' }).then(
          () => assert.fail(`${baseUrl} was read`),
          (e: Error) => e,
        );
        assert.ok(unavailable(error), String(error));
        assert.equal(error.message, GENERIC_503);
        assert.match(String((error.cause as Error).message), /may not reach/);
      }
      assert.equal(provider.asked.length, asked, 'the provider was never asked');
    });

    it('regression: a name that resolves to a forbidden address at connection time is refused (DNS rebinding after creation)', async () => {
      // The provider's name, resolved by a stand-in for DNS: what it answers when connecting,
      // whatever it answered when the connection was created (stored() skips that check).
      const name = 'scim.rebinding.example';
      const records = new Map<string, string[]>();
      const resolved: string[] = [];
      const resolveAll: ResolveAll = (hostname, _options, callback) => {
        resolved.push(hostname);
        const addresses = records.get(hostname);
        if (!addresses) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
        callback(
          null,
          addresses.map((address) => ({ address, family: isIP(address) })),
        );
      };
      const baseUrl = `http://${name}:${new URL(provider.url).port}/scim/v2`;
      const box = connectionSecretBox(TEST_SECRET);
      provider.answer(() => [200, list(user('u1', 'ada@example.com'))]);

      // Where loopback may be reached (development mode), the name the stand-in resolves to the
      // provider's address is read: the stand-in is what the client resolves through.
      records.set(name, ['127.0.0.1']);
      const devOrg = await dev.org();
      const devDirectory = identityDirectory(dev.service.store, box, { timeoutMs: 1000, allowLoopback: true, resolveAll });
      const found = await devDirectory.lookup(devOrg.orgId, await stored(dev, devOrg, baseUrl), { email: 'ada@example.com' });
      assert.equal(found?.identityId, 'u1');
      assert.ok(resolved.includes(name));

      // Outside it, the same answer, a forbidden address among allowed ones, or a private one
      // alone are refused before any connection is made.
      const org = await prod.org();
      const directory = identityDirectory(prod.service.store, box, { timeoutMs: 1000, resolveAll });
      const id = await stored(prod, org, baseUrl);
      const asked = provider.asked.length;
      const answers: [addresses: string[], refused: string][] = [
        [['127.0.0.1'], '127.0.0.1'],
        [['93.184.215.14', '127.0.0.1'], '127.0.0.1'],
        [['10.0.0.7'], '10.0.0.7'],
      ];
      for (const [addresses, refused] of answers) {
        records.set(name, addresses);
        resolved.length = 0;
        const error = await directory.lookup(org.orgId, id, { email: 'ada@example.com' }).then(
          () => assert.fail(`read through ${addresses.join(', ')}`),
          (e: Error) => e,
        );
        assert.ok(unavailable(error), String(error));
        assert.equal(error.message, GENERIC_503);
        assert.equal((error.cause as Error).message, `scim_pull: ${name} resolves to ${refused}, which the service may not reach`);
        assert.ok(resolved.includes(name), 'the name was resolved when connecting');
      }
      assert.equal(provider.asked.length, asked, 'the provider was never asked');
    });

    it('regression: the 503 never says what the provider answered; the reason is the cause, for the log', async () => {
      const org = await dev.org();
      const created = await create(dev, org, provider.url);
      const directory = identityDirectory(dev.service.store, connectionSecretBox(TEST_SECRET), { timeoutMs: 1000, allowLoopback: true });
      for (const [status, body, reason] of [
        [401, { detail: 'internal admin console v2.3' }, /HTTP 401/],
        [200, '<html>internal</html>', /not JSON/],
        [200, { hello: 'world' }, /not a SCIM User/],
      ] as const) {
        provider.answer(() => [status, body]);
        const error = await directory.lookup(org.orgId, created.body.result.id, { identityId: 'u1' }).then(
          () => assert.fail('read'),
          (e: Error) => e,
        );
        assert.equal(error.message, GENERIC_503);
        assert.match(String((error.cause as Error).message), reason);
      }
    });
  });
}

describe('IDENTITY_SOURCE_UNAVAILABLE in the service log', () => {
  it("regression: the provider's answer, kept from the caller, is logged as the error's cause", () => {
    const logged: unknown[] = [];
    const sent: unknown[] = [];
    const reply = { code: () => reply, headers: () => reply, send: (body: unknown) => sent.push(body) };
    const request = { log: { warn: (...args: unknown[]) => logged.push(args), error: (...args: unknown[]) => logged.push(args) } };
    const cause = new Error('scim_pull: it answered HTTP 401');
    sendError(new ApiError('IDENTITY_SOURCE_UNAVAILABLE', GENERIC_503, { 'retry-after': '5' }, cause), request as never, reply as never);
    assert.deepEqual(logged, [[{ code: 'IDENTITY_SOURCE_UNAVAILABLE', err: cause }, 'request failed on a dependency']]);
    assert.ok(!JSON.stringify(sent).includes('401'));
  });
});
