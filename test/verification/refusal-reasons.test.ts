import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newId } from '../../src/crypto/ids.ts';
import { backends } from '../helpers/backends.ts';
import type { TestOrg, TestService } from '../helpers/service.ts';
import type { ScimTenant } from '../scim/scim-helpers.ts';
import { type Door, doorsOf, type Operators } from './doors.ts';
import { scimUser, startVerificationHarness, type VerificationHarness } from './harness.ts';

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const NO_IDENTITY = { httpcode: 404, code: 'NOT_FOUND', message: 'body.identity_id: no active identity with an email address in this connection' };

/** What an administrator reads of each refusal: the answer, and the audit event's outcome and reason. */
for (const backend of backends()) {
  describe(`Email verification refusals and their audited reasons, on ${backend.name}`, () => {
    let h: VerificationHarness;
    let t: TestService;
    let org: TestOrg;
    let scim: ScimTenant;
    let door: Door;
    let operators: Operators;

    before(async () => {
      h = await startVerificationHarness(backend);
      ({ t, org, scim } = h);
      const made = await doorsOf(t, org);
      door = made.doors.find((d) => d.name === 'integration')!;
      operators = made.operators;
    });
    after(() => h.close());

    const events = async (type: string) =>
      ((await t.call('GET', `/audit/events?type=${type}&limit=100`, { as: org })).body.result as { data: Record<string, unknown> }[]).map((e) => e.data);
    /** A SCIM user as the provider sends it; `attributes` replace the defaults (undefined drops one). */
    const provision = async (attributes: Record<string, unknown>) => {
      const email = `p.${Math.random().toString(36).slice(2)}@example.com`;
      const body = Object.fromEntries(Object.entries({ ...scimUser(email), ...attributes }).filter(([, value]) => value !== undefined));
      const created = await scim.call('POST', '/Users', body);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return created.body.id as string;
    };
    const initiate = (identityId: string) => door.initiate({ connection_id: scim.connectionId, identity_id: identityId });
    /** The outcome and reason of the initiates audited for this identity. */
    const initiated = async (identityId: string) =>
      (await events('verification.initiated')).filter((data) => data.identity_id === identityId).map((data) => [data.outcome, data.reason]);

    it('an identity without an email address is refused at initiate: 404, audited as no_email', async () => {
      const identityId = await provision({ emails: undefined });
      const refused = await initiate(identityId);
      assert.deepEqual([refused.status, refused.body.errors], [404, [NO_IDENTITY]]);
      assert.deepEqual(await initiated(identityId), [['refused', 'no_email']]);
    });

    it('an identity whose provider never sent `active` is active: the code is sent', async () => {
      const identityId = await provision({ active: undefined });
      const sent = await initiate(identityId);
      assert.equal(sent.status, 201, JSON.stringify(sent.body));
      await h.smtp.nextMessage();
      assert.deepEqual(await initiated(identityId), [['sent', null]]);
    });

    it('a deactivated identity whose `active` the provider then removed stays inactive: 404, audited as inactive', async () => {
      const identityId = await provision({});
      const deactivate = { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', path: 'active', value: false }] };
      assert.equal((await scim.call('PATCH', `/Users/${identityId}`, deactivate)).status, 200);
      const removed = await scim.call('PUT', `/Users/${identityId}`, {
        schemas: [USER_SCHEMA],
        userName: `${identityId}@example.com`,
        emails: scimUser('x@example.com').emails,
      });
      assert.equal(removed.status, 200, JSON.stringify(removed.body));
      assert.equal(removed.body.active, false, 'SCIM shows it inactive');
      const refused = await initiate(identityId);
      assert.deepEqual([refused.status, refused.body.errors], [404, [NO_IDENTITY]]);
      assert.deepEqual(await initiated(identityId), [['refused', 'inactive']]);
    });

    it('a verify of an id no verification has: 404, audited as unknown with no identity', async () => {
      const verificationId = newId('evf', Date.now());
      const answer = await door.verify({ verification_id: verificationId, connection_id: scim.connectionId, code: '123456' }, operators.verifier);
      assert.deepEqual(
        [answer.status, answer.body.errors],
        [
          404,
          [{ httpcode: 404, code: 'NOT_FOUND', message: 'body.verification_id: no open verification has this id (unknown, expired, already used or closed)' }],
        ],
      );
      const attempts = (await events('verification.attempt')).filter((data) => data.verification_id === verificationId);
      assert.deepEqual(
        attempts.map((data) => [data.outcome, data.reason, data.identity_id]),
        [['refused', 'unknown', null]],
      );
    });
  });
}
