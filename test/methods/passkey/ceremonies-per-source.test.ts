import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admitLoginCeremony, LOGIN_CEREMONIES_PER_SOURCE } from '../../../src/methods/passkey/ceremonies-per-source.ts';
import { login, twoFactorPerson } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { errorCodes, startTestService, type TestOrg, type TestService } from '../../helpers/service.ts';
import { asBrowser, configurePasskeys } from './passkeys.ts';

for (const backend of backends()) {
  describe(`Passkey login ceremonies per source, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      await configurePasskeys(t, org);
    });
    after(() => t.close());

    it('regression: an IPv6 client counted once per address, so its /64 gave it 2^64 times the bound; now the /64 is one source', async () => {
      const { store } = t.service;
      const at = Date.now();
      for (let i = 0; i < LOGIN_CEREMONIES_PER_SOURCE.limit; i++) await admitLoginCeremony(store, org.orgId, `2001:db8:1:2::${(i + 16).toString(16)}`, at);
      await assert.rejects(admitLoginCeremony(store, org.orgId, '2001:db8:1:2:ffff::1', at), { code: 'TOO_MANY_CEREMONIES' });
      await admitLoginCeremony(store, org.orgId, '2001:db8:1:3::1', at);
    });

    it('regression: ceremonies started with a second-factor ticket were not counted (100 stored 100 challenges); now they count as any', async () => {
      const own = await t.org();
      await configurePasskeys(t, own);
      const person = await twoFactorPerson(t, own);
      const first = await login(t, own, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: person.password });
      const ticket = first.body.result.second_factor_ticket as string;
      for (let i = 0; i < LOGIN_CEREMONIES_PER_SOURCE.limit; i++) {
        assert.equal((await asBrowser(t, own, '/authn/webauthn/options', { second_factor_ticket: ticket })).status, 200);
      }
      const over = await asBrowser(t, own, '/authn/webauthn/options', { second_factor_ticket: ticket });
      assert.deepEqual([over.status, errorCodes(over.body)], [429, ['TOO_MANY_CEREMONIES']]);
      assert.equal((await asBrowser(t, own, '/authn/webauthn/options', {})).status, 429, 'one bound for every ceremony of the address');
    });
  });
}
