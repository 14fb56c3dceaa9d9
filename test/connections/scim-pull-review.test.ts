import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type IdentityDirectory, identityDirectory } from '../../src/connections/identity-directory.ts';
import { connectionSecretBox } from '../../src/connections/sealing.ts';
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
      directory = identityDirectory(t.service.store, connectionSecretBox(TEST_SECRET), { timeoutMs: 1000 });
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
