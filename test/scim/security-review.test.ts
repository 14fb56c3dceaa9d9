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
      t = await startTestService(backend);
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
  });
}
