import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { assertScimError, type ScimTenant, scimTenant } from './scim-helpers.ts';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const patch = (...Operations: unknown[]) => ({ schemas: [PATCH], Operations });

/** Values a mailer would read as a list, a display name or a header: none is one address. */
const notOneAddress: [string, string][] = [
  ['a list', 'victim@example.com, attacker@evil.test'],
  ['a list with a semicolon', 'victim@example.com;attacker@evil.test'],
  ['a display name hiding another address', '"victim@example.com" <attacker@evil.test>'],
  ['an angle-bracketed address', '<attacker@evil.test>'],
  ['a CR/LF header injection', 'victim@example.com\r\nBcc: attacker@evil.test'],
  ['a bare LF', 'victim@example.com\nattacker@evil.test'],
  ['no domain', 'victim'],
];

for (const backend of backends()) {
  describe(`SCIM security review (issue 12) on ${backend.name}`, () => {
    let t: TestService;
    let tenant: ScimTenant;
    let id: string;
    before(async () => {
      // A body limit above the User cap, so POST and PUT reach it (PATCH reaches it in small steps anyway).
      t = await startTestService(backend, { TESSERA_BODY_LIMIT: '1048576' });
      tenant = await scimTenant(t);
      const created = await tenant.call('POST', '/Users', { schemas: [CORE], userName: 'grace', emails: [{ type: 'work', value: 'Grace@Example.com' }] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      id = created.body.id;
    });
    after(() => t.close());

    for (const [what, value] of notOneAddress) {
      it(`regression: an email value that is ${what} is refused at every SCIM write (400 invalidValue), nothing changes`, async () => {
        const before = (await tenant.call('GET', `/Users/${id}`)).body;
        const user = { schemas: [CORE], userName: `u-${Math.random()}`, emails: [{ type: 'work', value }] };
        for (const response of [
          await tenant.call('POST', '/Users', user),
          await tenant.call('PUT', `/Users/${id}`, { ...user, userName: 'grace' }),
          // Entra: a value-path filter, and the path-less flag form; Okta: a whole emails array.
          await tenant.call('PATCH', `/Users/${id}`, patch({ op: 'Replace', path: 'emails[type eq "work"].value', value })),
          await tenant.call('PATCH', `/Users/${id}`, patch({ op: 'Add', value: { 'emails[type eq "work"].value': value } })),
          await tenant.call('PATCH', `/Users/${id}`, patch({ op: 'replace', path: 'emails', value: [{ type: 'work', value, primary: true }] })),
          await tenant.call('PATCH', `/Users/${id}`, patch({ op: 'replace', value: { emails: [{ type: 'home', value }] } })),
        ]) {
          assertScimError(response, 400, 'invalidValue');
          assert.match(response.body.detail, /^emails\[\d+\]\.value: /);
        }
        assert.deepEqual((await tenant.call('GET', `/Users/${id}`)).body, before);
        assert.equal((await tenant.call('GET', `/Users?filter=${encodeURIComponent('userName eq "grace"')}`)).body.totalResults, 1);
      });
    }

    it('regression: one address in any case, internationalised local part or A-label domain is still accepted as sent', async () => {
      for (const value of ['Ada.Lovelace+scim@Example.COM', 'jos\u00e9@example.com', 'ada@xn--mnchen-3ya.example']) {
        const created = await tenant.call('POST', '/Users', { userName: `ok-${Math.random()}`, emails: [{ type: 'work', value }] });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal(created.body.emails[0].value, value);
      }
    });

    const ext = (i: number) => `urn:example:scim:schemas:extension:custom${i}:2.0:User`;
    const blob = (kib: number) => ({ note: 'x'.repeat(kib * 1024) });

    it('regression: a User cannot grow past 64 KiB through many extensions each under 16 KB, on POST, PUT or PATCH', async () => {
      const big = Object.fromEntries([1, 2, 3, 4, 5].map((i) => [ext(i), blob(15)]));
      const user = { schemas: [CORE], userName: 'grace', emails: [{ type: 'work', value: 'Grace@Example.com' }] };
      const before = (await tenant.call('GET', `/Users/${id}`)).body;
      for (const response of [
        await tenant.call('POST', '/Users', { ...user, userName: 'big', ...big }),
        await tenant.call('PUT', `/Users/${id}`, { ...user, ...big }),
        await tenant.call('PATCH', `/Users/${id}`, patch({ op: 'add', value: big })),
        // Core attributes too: 100 addresses of long strings, each value within its own limit.
        await tenant.call('POST', '/Users', { userName: 'wide', addresses: Array.from({ length: 100 }, () => ({ formatted: 'a'.repeat(1000) })) }),
      ]) {
        assertScimError(response, 400, 'invalidValue');
        assert.match(response.body.detail, /64 KiB/);
      }
      // Grown one PATCH at a time, the User stops at the cap.
      const answers: number[] = [];
      for (const i of [1, 2, 3, 4, 5]) answers.push((await tenant.call('PATCH', `/Users/${id}`, patch({ op: 'add', path: ext(i), value: blob(15) }))).status);
      assert.deepEqual(answers, [200, 200, 200, 200, 400]);
      const grown = (await tenant.call('GET', `/Users/${id}`)).body;
      assert.ok(Buffer.byteLength(JSON.stringify(grown)) < 70 * 1024);
      assert.equal((await tenant.call('PUT', `/Users/${id}`, { ...before, schemas: [CORE], meta: undefined })).status, 200, 'the User can be shrunk back');
    });

    it('regression: a User holds at most 10 extension schemas besides the Enterprise one', async () => {
      const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [ext(i), { n: i }]));
      const ok = await tenant.call('POST', '/Users', {
        userName: 'ten',
        ...many(10),
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'R&D' },
      });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      const tooMany = await tenant.call('POST', '/Users', { userName: 'eleven', ...many(11) });
      assertScimError(tooMany, 400, 'invalidValue');
      assert.match(tooMany.body.detail, /at most 10 extension schemas/);
      assertScimError(await tenant.call('PATCH', `/Users/${ok.body.id}`, patch({ op: 'add', path: ext(10), value: { n: 10 } })), 400, 'invalidValue');
    });
  });
}
