import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';
import { codeFrom, type SmtpListener, startSmtpListener } from '../helpers/smtp.ts';
import { scimTenant } from '../scim/scim-helpers.ts';
import { doorsOf } from './doors.ts';
import { scimUser, startVerificationHarness } from './harness.ts';

const user = scimUser;
const newEmail = () => `p.${Math.random().toString(36).slice(2)}@example.com`;

for (const backend of backends()) {
  describe(`Email verification under faults, on ${backend.name}`, () => {
    it('a code the mail server refused leaves nothing usable: 502 EMAIL_NOT_SENT, the verification closed', async () => {
      const h = await startVerificationHarness(backend, { smtp: { refuseRecipients: true } });
      const { t, org, scim } = h;
      try {
        const identity = await h.provisioned();
        const [integration] = (await doorsOf(t, org)).doors;
        const refused = await integration!.initiate({ connection_id: scim.connectionId, identity_id: identity.id });
        assert.deepEqual([refused.status, refused.body.errors[0].code], [502, 'EMAIL_NOT_SENT']);
        const events = await t.call('GET', '/audit/events?type=verification.initiated', { as: org });
        const failed = events.body.result.at(-1).data;
        assert.deepEqual([failed.outcome, failed.reason], ['failed', 'email_not_sent']);
        const stored = await t.service.store.getEmailVerification(org.orgId, failed.verification_id);
        assert.deepEqual([stored?.state, stored?.closedReason], ['closed', 'email_not_sent']);
      } finally {
        await h.close();
      }
    });

    describe('a scim_pull connection: the provider is read at initiate and at the deny-gate', () => {
      let smtp: SmtpListener;
      let provider: TestService;
      let t: TestService;
      let org: TestOrg;
      let providerScim: Awaited<ReturnType<typeof scimTenant>>;
      let connectionId: string;

      before(async () => {
        smtp = await startSmtpListener();
        provider = await startTestService(backend);
        providerScim = await scimTenant(provider);
        t = await startTestService(backend, { TESSERA_DEV: '1', TESSERA_SMTP_URL: smtp.url, TESSERA_SMTP_FROM: 'verify@example.org' });
        org = await t.org();
        const connection = await t.call('POST', '/organizations/connections', {
          as: org,
          body: { name: 'live directory', type: 'scim_pull', base_url: `${provider.url}/scim/v2`, bearer_token: providerScim.token },
        });
        assert.equal(connection.status, 201, JSON.stringify(connection.body));
        connectionId = connection.body.result.id;
      });
      after(async () => {
        await t.close();
        await provider.close().catch(() => {});
        await smtp.close();
      });

      it('an identity removed at the provider, never pushed, is refused by the deny-gate', async () => {
        const email = newEmail();
        const created = await providerScim.call('POST', '/Users', user(email));
        const { doors, operators } = await doorsOf(t, org);
        const started = await doors[0]!.initiate({ connection_id: connectionId, email });
        assert.equal(started.status, 201, JSON.stringify(started.body));
        const code = codeFrom(await smtp.nextMessage());
        assert.equal((await providerScim.call('DELETE', `/Users/${created.body.id}`)).status, 204);
        const denied = await doors[0]!.verify({ verification_id: started.body.result.verification_id, connection_id: connectionId, code }, operators.verifier);
        assert.deepEqual([denied.status, denied.body.errors[0].code], [403, 'IDENTITY_NOT_VERIFIABLE']);
      });

      it('a provider that cannot be read fails closed: 503 with Retry-After, the attempt not counted, the code still good', async () => {
        const email = newEmail();
        await providerScim.call('POST', '/Users', user(email));
        const { doors, operators } = await doorsOf(t, org);
        const started = await doors[0]!.initiate({ connection_id: connectionId, email });
        const code = codeFrom(await smtp.nextMessage());
        const id: string = started.body.result.verification_id;
        // The provider's token is rotated away: every read of it is now refused (401), as an outage would be.
        const rotated = await provider.call('POST', `/organizations/connections/${providerScim.connectionId}/scim-token`, { as: providerScim.org });
        assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
        const down = await doors[0]!.verify({ verification_id: id, connection_id: connectionId, code }, operators.verifier);
        assert.deepEqual([down.status, down.body.errors[0].code], [503, 'IDENTITY_SOURCE_UNAVAILABLE']);
        assert.ok(Number(down.headers.get('retry-after')) > 0);
        const stored = await t.service.store.getEmailVerification(org.orgId, id);
        assert.deepEqual([stored?.state, stored?.attempts], ['open', 0]);
        const refusedAtInitiate = await doors[0]!.initiate({ connection_id: connectionId, email });
        assert.equal(refusedAtInitiate.status, 503, 'initiate fails closed too');
      });
    });

    it('removing the identity while 20 right codes race never lets one succeed after the removal was seen', async () => {
      const h = await startVerificationHarness(backend);
      const { t, org, scim } = h;
      try {
        const { doors, operators } = await doorsOf(t, org);
        const { identity, id, code } = await h.started(doors[0]!);
        const body = { verification_id: id, connection_id: scim.connectionId, code };
        const [removal, ...answers] = await Promise.all([
          scim.call('DELETE', `/Users/${identity.id}`),
          ...Array.from({ length: 20 }, () => doors[0]!.verify(body, operators.verifier)),
        ]);
        assert.equal(removal!.status, 204);
        const verified = answers.filter((a) => a.status === 200 && a.body.result.verified === true);
        assert.ok(verified.length <= 1, 'at most one success');
        assert.ok(
          // 429: the identity's or the verification's attempts ran out before this one was taken.
          answers.every((a) => [200, 403, 404, 429].includes(a.status)),
          JSON.stringify(answers.map((a) => a.status)),
        );
        const attempts = (await t.call('GET', '/audit/events?type=verification.attempt&limit=100', { as: org })).body.result;
        const deniedAfterSuccess = attempts.some((e: { data: { outcome: string } }) => e.data.outcome === 'verified') && verified.length === 0;
        assert.equal(deniedAfterSuccess, false, 'the audit log and the answers agree');
        const later = await doors[0]!.verify(body, operators.verifier);
        assert.notEqual(later.status, 200, 'nothing verifies once the removal is done');
      } finally {
        await h.close();
      }
    });

    it('an expired verification is 404 and counts nothing (frozen clock)', async () => {
      const clock: TestClock = { at: Date.UTC(2031, 0, 1) };
      const t = await startFrozenService(backend, clock);
      try {
        const org = await t.org();
        const scim = await scimTenant(t, org);
        const { doors, operators } = await doorsOf(t, org);
        const created = await scim.call('POST', '/Users', user(newEmail()));
        const started = await doors[0]!.initiate({ connection_id: scim.connectionId, identity_id: created.body.id });
        assert.equal(started.status, 201, JSON.stringify(started.body));
        assert.equal(started.body.result.expires_at, new Date(clock.at + 10 * 60 * 1000).toISOString());
        clock.at += 10 * 60 * 1000;
        const expired = await doors[0]!.verify(
          { verification_id: started.body.result.verification_id, connection_id: scim.connectionId, code: '123456' },
          operators.verifier,
        );
        assert.deepEqual([expired.status, expired.body.errors[0].code], [404, 'NOT_FOUND']);
        assert.equal((await t.service.store.getEmailVerification(org.orgId, started.body.result.verification_id))?.attempts, 0);
      } finally {
        await t.close();
      }
    });
  });
}
