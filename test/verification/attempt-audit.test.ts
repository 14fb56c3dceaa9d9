import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import type { Response, TestOrg, TestService } from '../helpers/service.ts';
import { type ScimTenant, scimTenant } from '../scim/scim-helpers.ts';
import { type Door, doorsOf, type Operators } from './doors.ts';
import { scimUser, startVerificationHarness, type VerificationHarness, wrongCode } from './harness.ts';

const NO_OPEN = 'body.verification_id: no open verification has this id (unknown, expired, already used or closed)';
const NOT_VERIFIABLE = 'verification: the identity is no longer in its connection, active, at the address the code went to; the verification is closed';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** The answer as a client reads it: status, error code and message, and Retry-After when there is one. */
const refusal = (answer: Response) => [answer.status, answer.body.errors?.[0]?.code, answer.body.errors?.[0]?.message, answer.headers.get('retry-after')];

/** The verification.attempt (or .initiated) events of an organisation, as `data`, oldest first. */
async function auditOf(t: TestService, org: TestOrg, type: 'verification.attempt' | 'verification.initiated'): Promise<Record<string, unknown>[]> {
  const listed = await t.call('GET', `/audit/events?type=${type}&limit=100`, { as: org });
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  return (listed.body.result as { data: Record<string, unknown> }[]).map((event) => event.data);
}

/**
 * What an administrator reads of each verify and initiate: the answer, and the audit event's
 * outcome, reason and identity (design §6's order, one refusal at a time).
 */
for (const backend of backends()) {
  describe(`Email verification attempts as answered and audited, on ${backend.name}`, () => {
    let h: VerificationHarness;
    let t: TestService;
    let org: TestOrg;
    let scim: ScimTenant;
    let door: Door;
    let operators: Operators;

    before(async () => {
      h = await startVerificationHarness(backend);
      ({ t, org, scim } = h);
    });
    after(() => h.close());

    /** Fresh operators for each test: the per-operator rate limit is not shared between them. */
    const fresh = async () => {
      const made = await doorsOf(t, org);
      door = made.doors.find((d) => d.name === 'integration')!;
      operators = made.operators;
    };
    const attempts = async (verificationId: string) =>
      (await auditOf(t, org, 'verification.attempt'))
        .filter((data) => data.verification_id === verificationId)
        .map((data) => [data.outcome, data.reason, data.identity_id]);
    const verify = (id: string, code: string, operator = operators.verifier, connectionId = scim.connectionId) =>
      door.verify({ verification_id: id, connection_id: connectionId, code }, operator);

    it('a right code is verified, audited with the operator; used again it is 404, audited as spent', async () => {
      await fresh();
      const { identity, id, code } = await h.started(door);
      assert.match(id, /^evf_[0-9a-z]{26}$/, 'a verification id is typed, as docs/email-verification.md shows');
      assert.deepEqual((await verify(id, code)).body.result, { verified: true });
      assert.deepEqual(refusal(await verify(id, code)), [404, 'NOT_FOUND', NO_OPEN, null]);
      assert.deepEqual(await attempts(id), [
        ['verified', null, identity.id],
        ['refused', 'spent', null],
      ]);
      const [verified] = (await auditOf(t, org, 'verification.attempt')).filter((data) => data.verification_id === id);
      assert.deepEqual(
        [verified!.door, verified!.operator_email, verified!.operator_assertion, verified!.connection_id],
        ['integration', operators.verifier, 'integration_asserted', scim.connectionId],
      );
    });

    it('a verification replaced by a new initiate is 404, audited as closed; the new initiate names the one it replaced', async () => {
      await fresh();
      const first = await h.started(door);
      const again = await door.initiate({ connection_id: scim.connectionId, identity_id: first.identity.id });
      assert.equal(again.status, 201, JSON.stringify(again.body));
      await h.smtp.nextMessage();
      const initiated = (await auditOf(t, org, 'verification.initiated')).filter((data) => data.identity_id === first.identity.id);
      assert.deepEqual(
        initiated.map((data) => [data.outcome, data.reason, data.verification_id, data.replaced]),
        [
          ['sent', null, first.id, []],
          ['sent', null, again.body.result.verification_id, [first.id]],
        ],
      );
      assert.deepEqual(refusal(await verify(first.id, first.code)), [404, 'NOT_FOUND', NO_OPEN, null]);
      assert.deepEqual(await attempts(first.id), [['refused', 'closed', null]]);
    });

    it("another connection's id is 400 naming the field, a non-verifier 403: audited as connection_mismatch and operator_not_verifier, neither counted", async () => {
      await fresh();
      const { identity, id, code } = await h.started(door);
      const other = await verify(id, code, operators.verifier, 'con_other');
      assert.deepEqual(refusal(other), [400, 'INVALID_FIELD', 'body.connection_id: is not the connection the verification was initiated for', null]);
      assert.equal((await verify(id, code, operators.nonVerifier)).status, 403);
      assert.deepEqual(await attempts(id), [
        ['refused', 'connection_mismatch', identity.id],
        ['refused', 'operator_not_verifier', identity.id],
      ]);
      assert.equal((await t.service.store.getEmailVerification(org.orgId, id))?.attempts, 0);
    });

    it('wrong codes are audited as wrong_code, the fifth as closed_after_too_many; then 429, audited as too_many_attempts', async () => {
      await fresh();
      const { identity, id, code } = await h.started(door);
      for (let i = 0; i < 5; i++) assert.deepEqual((await verify(id, wrongCode(code))).body.result, { verified: false });
      const closed = await verify(id, code);
      assert.deepEqual(refusal(closed), [429, 'TOO_MANY_VERIFICATION_ATTEMPTS', 'verification: closed after 5 wrong codes; initiate a new one', null]);
      assert.deepEqual(await attempts(id), [
        ...Array.from({ length: 4 }, () => ['wrong_code', null, identity.id]),
        ['wrong_code', 'closed_after_too_many', identity.id],
        ['refused', 'too_many_attempts', identity.id],
      ]);
    });

    it('the deny-gate: a removed identity and a deactivated one are 403, audited as identity_removed and identity_inactive', async () => {
      await fresh();
      const removed = await h.started(door);
      assert.equal((await scim.call('DELETE', `/Users/${removed.identity.id}`)).status, 204);
      assert.deepEqual(refusal(await verify(removed.id, removed.code)), [403, 'IDENTITY_NOT_VERIFIABLE', NOT_VERIFIABLE, null]);
      assert.deepEqual(await attempts(removed.id), [['refused', 'identity_removed', removed.identity.id]]);

      const deactivated = await h.started(door);
      const patch = { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', path: 'active', value: false }] };
      assert.equal((await scim.call('PATCH', `/Users/${deactivated.identity.id}`, patch)).status, 200);
      assert.deepEqual(refusal(await verify(deactivated.id, deactivated.code)), [403, 'IDENTITY_NOT_VERIFIABLE', NOT_VERIFIABLE, null]);
      assert.deepEqual(await attempts(deactivated.id), [['refused', 'identity_inactive', deactivated.identity.id]]);
      const stored = await t.service.store.getEmailVerification(org.orgId, deactivated.id);
      assert.deepEqual([stored?.state, stored?.closedReason], ['closed', 'identity_removed']);
    });

    it('an identity whose address is now empty is refused by the deny-gate, audited as email_changed', async () => {
      await fresh();
      const { identity, id, code } = await h.started(door);
      const emptied = await scim.call('PUT', `/Users/${identity.id}`, { ...scimUser(identity.email), emails: [] });
      assert.equal(emptied.status, 200, JSON.stringify(emptied.body));
      assert.deepEqual(refusal(await verify(id, code)), [403, 'IDENTITY_NOT_VERIFIABLE', NOT_VERIFIABLE, null]);
      assert.deepEqual(await attempts(id), [['refused', 'email_changed', identity.id]]);
    });

    it('an initiate by an address no identity holds is 404 naming body.email, audited as not_in_connection', async () => {
      await fresh();
      const refused = await door.initiate({ connection_id: scim.connectionId, email: 'nobody.here@example.com' });
      assert.deepEqual(refusal(refused), [404, 'NOT_FOUND', 'body.email: no active identity with an email address in this connection', null]);
      const initiated = (await auditOf(t, org, 'verification.initiated')).at(-1)!;
      assert.deepEqual([initiated.outcome, initiated.reason, initiated.identity_id], ['refused', 'not_in_connection', null]);
    });
  });

  describe(`Email verification rate limits and expiry, as answered and audited (frozen clock), on ${backend.name}`, () => {
    const clock: TestClock = { at: Date.UTC(2031, 0, 1) };
    let t: TestService;

    before(async () => {
      t = await startFrozenService(backend, clock);
    });
    after(() => t.close());

    /** A fresh organisation, directory and operators; `identity()` provisions one identity in it. */
    const tenant = async () => {
      const org = await t.org();
      const scim = await scimTenant(t, org);
      const { doors, operators } = await doorsOf(t, org);
      const door = doors.find((d) => d.name === 'integration')!;
      const emails = new Map<string, string>();
      const identity = async () => {
        const email = `p.${Math.random().toString(36).slice(2)}@example.com`;
        const created = await scim.call('POST', '/Users', scimUser(email));
        assert.equal(created.status, 201, JSON.stringify(created.body));
        emails.set(created.body.id, email);
        return created.body.id as string;
      };
      const initiate = (identityId: string) => door.initiate({ connection_id: scim.connectionId, identity_id: identityId });
      const started = async (identityId: string) => {
        const answer = await initiate(identityId);
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
        return answer.body.result.verification_id as string;
      };
      // The code went to a log nobody reads here: every code tried is a guess (one in a million is right).
      const guess = (id: string, operator = operators.verifier) =>
        door.verify({ verification_id: id, connection_id: scim.connectionId, code: '000000' }, operator);
      const audit = (type: 'verification.attempt' | 'verification.initiated') => auditOf(t, org, type);
      const initiateByEmail = (identityId: string) => door.initiate({ connection_id: scim.connectionId, email: emails.get(identityId) });
      return { org, connectionId: scim.connectionId, identity, initiate, initiateByEmail, started, guess, audit };
    };

    it('an expired verification is 404, audited as open_expired; a replaced one that expired too as closed_expired', async () => {
      const { identity, started, guess, audit } = await tenant();
      const person = await identity();
      const replaced = await started(person);
      const current = await started(person);
      clock.at += 10 * 60 * 1000;
      assert.deepEqual(refusal(await guess(current)), [404, 'NOT_FOUND', NO_OPEN, null]);
      assert.deepEqual(refusal(await guess(replaced)), [404, 'NOT_FOUND', NO_OPEN, null]);
      const reasons = (await audit('verification.attempt')).map((data) => [data.verification_id, data.outcome, data.reason]);
      assert.deepEqual(reasons, [
        [current, 'refused', 'open_expired'],
        [replaced, 'refused', 'closed_expired'],
      ]);
    });

    it('the sixth initiate for one identity in ten minutes is 429 with Retry-After, audited as identity_rate_limited with the identity, counted where every replica counts it; another identity is not limited', async () => {
      const { org, connectionId, identity, initiateByEmail, started, audit } = await tenant();
      const person = await identity();
      for (let i = 0; i < 5; i++) await started(person);
      clock.at += 1000;
      // By its address: the audit names the identity the directory answered, not only one the caller named.
      assert.deepEqual(refusal(await initiateByEmail(person)), [
        429,
        'IDENTITY_RATE_LIMITED',
        'identity: too many codes sent for this identity; retry after 599 s',
        '599',
      ]);
      const last = (await audit('verification.initiated')).at(-1)!;
      assert.deepEqual([last.outcome, last.reason, last.identity_id], ['refused', 'identity_rate_limited', person]);
      // The counter is stored under a name every replica, of this release or the one before, counts the identity's codes in.
      const key = `initiate-identity:${connectionId}:${person}`;
      const counted = await t.service.store.takeRateLimit({ orgId: org.orgId, key, now: clock.at, limit: 5, windowMs: 10 * 60_000 });
      assert.deepEqual([counted.allowed, counted.count], [false, 7], 'five codes, the refused sixth, and this one');
      await started(await identity());
    });

    it('the eleventh attempt at one identity in an hour is 429 with Retry-After, audited as identity_rate_limited, counted where every replica counts it', async () => {
      const { org, connectionId, identity, started, guess, audit } = await tenant();
      const person = await identity();
      for (let round = 0; round < 2; round++) {
        const id = await started(person);
        for (let i = 0; i < 5; i++) assert.deepEqual((await guess(id)).body.result, { verified: false });
      }
      const third = await started(person);
      clock.at += 500;
      const limited = await guess(third);
      assert.deepEqual(refusal(limited), [
        429,
        'IDENTITY_RATE_LIMITED',
        'identity: too many verification attempts for this identity; retry after 3600 s',
        '3600',
      ]);
      const last = (await audit('verification.attempt')).at(-1)!;
      assert.deepEqual([last.verification_id, last.outcome, last.reason, last.identity_id], [third, 'refused', 'identity_rate_limited', person]);
      // The counter is stored under a name every replica, of this release or the one before, counts the identity's attempts in.
      const key = `verify-identity:${connectionId}:${person}`;
      const counted = await t.service.store.takeRateLimit({ orgId: org.orgId, key, now: clock.at, limit: 10, windowMs: 60 * 60_000 });
      assert.deepEqual([counted.allowed, counted.count], [false, 12], 'ten attempts, the refused eleventh, and this one');
    });

    it("an operator's thirty-first attempt in a minute is 429 with Retry-After, audited as operator_rate_limited; another operator is not limited", async () => {
      const { org, identity, started, guess, audit } = await tenant();
      // Four guesses at each of eight verifications: none closes, and no identity reaches its own limit.
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) ids.push(await started(await identity()));
      for (let i = 0; i < 30; i++) assert.deepEqual((await guess(ids[Math.floor(i / 4)]!)).body.result, { verified: false }, `attempt ${i + 1}`);
      clock.at += 59_500;
      const limited = await guess(ids[7]!);
      assert.deepEqual(refusal(limited), [429, 'OPERATOR_RATE_LIMITED', 'operator: too many verification attempts; retry after 1 s', '1']);
      const last = (await audit('verification.attempt')).at(-1)!;
      assert.deepEqual([last.verification_id, last.outcome, last.reason], [ids[7], 'refused', 'operator_rate_limited']);
      const another = (await doorsOf(t, org)).operators.verifier;
      assert.deepEqual((await guess(ids[7]!, another)).body.result, { verified: false }, 'another operator has a limit of their own');
    });
  });
}
