import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import type { TestOrg, TestService } from '../helpers/service.ts';
import { codeFrom, type SmtpListener } from '../helpers/smtp.ts';
import type { ScimTenant } from '../scim/scim-helpers.ts';
import { type Door, doorsOf } from './doors.ts';
import { startVerificationHarness, type VerificationHarness, wrongCode } from './harness.ts';

const long = 'x'.repeat(300);

for (const backend of backends()) {
  describe(`Email verification: bad input and limits, on ${backend.name}`, () => {
    let h: VerificationHarness;
    let t: TestService;
    let org: TestOrg;
    let scim: ScimTenant;
    let smtp: SmtpListener;
    const started = (door: Door) => h.started(door);

    before(async () => {
      h = await startVerificationHarness(backend);
      ({ t, org, scim, smtp } = h);
    });
    after(() => h.close());

    it('refuses every bad field of initiate and verify with a 400 naming it, and stores nothing', async () => {
      const { doors, operators } = await doorsOf(t, org);
      const [integration] = doors;
      const initiates: [Record<string, unknown>, string][] = [
        [{}, 'body'],
        [{ connection_id: 7, identity_id: 'x' }, 'body.connection_id'],
        [{ connection_id: '', identity_id: 'x' }, 'body.connection_id'],
        [{ connection_id: long, identity_id: 'x' }, 'body.connection_id'],
        [{ connection_id: scim.connectionId, identity_id: '' }, 'body.identity_id'],
        [{ connection_id: scim.connectionId, identity_id: long }, 'body.identity_id'],
        [{ connection_id: scim.connectionId, email: 42 }, 'body.email'],
        [{ connection_id: scim.connectionId, email: `${long}@example.com` }, 'body.email'],
        [{ connection_id: scim.connectionId, identity_id: 'x', to: 'attacker@example.com' }, 'body'],
      ];
      for (const [body, field] of initiates) {
        const response = await integration!.initiate(body);
        assert.equal(response.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(response.body)}`);
        assert.ok(response.body.errors[0].message.startsWith(field), `${response.body.errors[0].message} names ${field}`);
      }
      const good = { verification_id: 'evf_1', connection_id: scim.connectionId, code: '123456' };
      const operator = { email: operators.verifier, assertion: 'integration_asserted' };
      const verifies: [Record<string, unknown>, string][] = [
        [{ ...good, verification_id: undefined, operator }, 'body'],
        [{ ...good, verification_id: '', operator }, 'body.verification_id'],
        [{ ...good, verification_id: long, operator }, 'body.verification_id'],
        [{ ...good, code: 123456, operator }, 'body.code'],
        [{ ...good, code: '12345a', operator }, 'body.code'],
        [{ ...good, code: '１２３４５６', operator }, 'body.code'],
        [{ ...good, code: '1234567', operator }, 'body.code'],
        [{ ...good, connection_id: undefined, operator }, 'body'],
        [good, 'body'],
        [{ ...good, operator: { email: 'not an email', assertion: 'integration_asserted' } }, 'body.operator.email'],
        [{ ...good, operator: { email: operators.verifier } }, 'body.operator'],
        [{ ...good, operator: { ...operator, assertion: 'trust_me' } }, 'body.operator.assertion'],
        [{ ...good, operator: { ...operator, role: 'admin' } }, 'body.operator'],
        [{ ...good, operator, verified: true }, 'body'],
      ];
      for (const [body, field] of verifies) {
        const response = await t.call('POST', '/integrations/email-verifications/verify', {
          as: { 'service-orgid': org.orgId, 'service-api-key': (await doorsOf(t, org)).integrationKey },
          body,
        });
        assert.equal(response.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(response.body)}`);
        assert.ok(response.body.errors[0].message.startsWith(field), `${response.body.errors[0].message} names ${field}`);
      }
      assert.equal(smtp.messages.length, 0, 'no email went anywhere');
    });

    it('fifty concurrent wrong codes count five, and then the verification answers 429', async () => {
      const { doors, operators } = await doorsOf(t, org);
      const { id, code } = await started(doors[0]!);
      const wrong = wrongCode(code);
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => doors[0]!.verify({ verification_id: id, connection_id: scim.connectionId, code: wrong }, operators.verifier)),
      );
      assert.equal(answers.filter((a) => a.status === 200 && a.body.result.verified === false).length, 5, JSON.stringify(answers.map((a) => a.status)));
      assert.equal((await t.service.store.getEmailVerification(org.orgId, id))?.attempts, 5);
      const right = await doors[0]!.verify({ verification_id: id, connection_id: scim.connectionId, code }, operators.verifier);
      assert.equal(right.status, 429);
    });

    it('limits one operator to 30 attempts a minute across verifications: 429 with Retry-After', async () => {
      const { doors, operators } = await doorsOf(t, org);
      // Four wrong codes each on eight verifications: none closes, so every attempt reaches the limit.
      const targets: Awaited<ReturnType<typeof started>>[] = [];
      for (let i = 0; i < 8; i++) targets.push(await started(doors[1]!));
      let limited: Awaited<ReturnType<Door['verify']>> | undefined;
      let judged = 0;
      for (let i = 0; i < 32 && !limited; i++) {
        const target = targets[Math.floor(i / 4)]!;
        const wrong = wrongCode(target.code);
        const answer = await doors[1]!.verify({ verification_id: target.id, connection_id: scim.connectionId, code: wrong }, operators.verifier);
        if (answer.status === 429 && answer.body.errors[0].code === 'OPERATOR_RATE_LIMITED') limited = answer;
        else judged++;
      }
      assert.equal(judged, 30, 'thirty attempts were judged first');
      assert.ok(limited, 'the operator was limited');
      assert.ok(Number(limited.headers.get('retry-after')) > 0 && Number(limited.headers.get('retry-after')) <= 60);
      const other = await doorsOf(t, org);
      const fresh = await started(other.doors[1]!);
      const ok = await other.doors[1]!.verify({ verification_id: fresh.id, connection_id: scim.connectionId, code: fresh.code }, other.operators.verifier);
      assert.equal(ok.body.result.verified, true, 'another operator is not limited');
    });

    it('regression: a verifier with two email handles was two operators to the rate limit; now one person is one operator', async () => {
      const { doors } = await doorsOf(t, org);
      const tag = Math.random().toString(36).slice(2);
      const emails = [`a.${tag}@example.org`, `b.${tag}@example.org`];
      const created = await t.call('POST', '/persons', {
        as: org,
        body: { handles: emails.map((value) => ({ type: 'email_address', value })), roles: ['verifier'], console: true },
      });
      assert.equal(created.status, 201);
      let judged = 0;
      for (let round = 0; round < 8 && judged < 31; round++) {
        const { id, code } = await started(doors[0]!);
        for (let i = 0; i < 4; i++) {
          const answer = await doors[0]!.verify({ verification_id: id, connection_id: scim.connectionId, code: wrongCode(code) }, emails[i % 2]!);
          if (answer.status === 429) {
            assert.equal(answer.body.errors[0].code, 'OPERATOR_RATE_LIMITED');
            assert.equal(judged, 30, 'thirty attempts across both addresses, then the limit');
            return;
          }
          judged++;
        }
      }
      assert.fail(`${judged} attempts were judged without a limit`);
    });

    it('regression: initiates for one identity were unlimited (a new five guesses each); now five in ten minutes, and ten attempts an hour', async () => {
      const { doors, operators } = await doorsOf(t, org);
      const identity = await h.provisioned();
      const initiate = () => doors[0]!.initiate({ connection_id: scim.connectionId, identity_id: identity.id });
      const codes: { id: string; code: string }[] = [];
      for (let i = 0; i < 5; i++) {
        const response = await initiate();
        assert.equal(response.status, 201, `initiate ${i + 1}`);
        codes.push({ id: response.body.result.verification_id, code: codeFrom(await smtp.nextMessage()) });
      }
      const sixth = await initiate();
      assert.deepEqual([sixth.status, sixth.body.errors[0].code], [429, 'IDENTITY_RATE_LIMITED']);
      assert.ok(Number(sixth.headers.get('retry-after')) > 0);
      assert.equal(smtp.messages.filter((m) => m.rcptTo[0]?.toLowerCase() === identity.email.toLowerCase()).length, 5, 'no sixth email');

      // Another identity: two verifications of five wrong codes each spend its ten an hour.
      const other = await h.provisioned();
      const verifyFor = async () => {
        const response = await doors[0]!.initiate({ connection_id: scim.connectionId, identity_id: other.id });
        assert.equal(response.status, 201);
        return { id: response.body.result.verification_id as string, code: codeFrom(await smtp.nextMessage()) };
      };
      for (let round = 0; round < 2; round++) {
        const { id, code } = await verifyFor();
        for (let i = 0; i < 5; i++) {
          const answer = await doors[0]!.verify({ verification_id: id, connection_id: scim.connectionId, code: wrongCode(code) }, operators.verifier);
          assert.equal(answer.body.result?.verified, false, JSON.stringify(answer.body));
        }
      }
      const third = await verifyFor();
      const refused = await doors[0]!.verify({ verification_id: third.id, connection_id: scim.connectionId, code: third.code }, operators.verifier);
      assert.deepEqual([refused.status, refused.body.errors[0].code], [429, 'IDENTITY_RATE_LIMITED'], 'even the right code waits');
    });

    it('regression: the helpdesk door judged the body (400) before the caller (401)', async () => {
      const response = await t.call('POST', '/helpdesk/email-verifications/verify', { as: { 'service-orgid': org.orgId }, body: { code: 'nope' } });
      assert.equal(response.status, 401);
    });
  });
}
