import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { errorCodes, startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

for (const backend of backends()) {
  describe(`PATCH /persons/{person_id} on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    const make = async (body: object = {}) => (await t.call('POST', '/persons', { as: org, body })).body.result;
    const patch = (id: string, body: unknown, as: TestOrg | Record<string, string> = org) => t.call('PATCH', `/persons/${id}`, { as, body });

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
    });
    after(() => t.close());

    it('changes roles or console membership, leaving the field not given as it was', async () => {
      const person = await make({ handles: [{ type: 'email_address', value: 'lin@example.com' }], roles: ['verifier'], console: false });
      await make({ roles: ['admin'], console: true }); // another console administrator: taking this one out below is allowed
      const roles = await patch(person.id, { roles: ['admin', 'verifier'] });
      assert.equal(roles.status, 200);
      assert.deepEqual(roles.body.result, { ...person, roles: ['admin', 'verifier'] });
      const member = await patch(person.id, { console: true });
      assert.deepEqual(member.body.result, { ...person, roles: ['admin', 'verifier'], console: true });
      const both = await patch(person.id, { roles: [], console: false });
      assert.deepEqual(both.body.result, { ...person, roles: [], console: false });
      assert.deepEqual((await t.call('GET', `/persons/${person.id}`, { as: org })).body.result, both.body.result);
    });

    it('refuses an empty body, an unknown field or role, naming it (400), and changes nothing', async () => {
      const person = await make({ roles: ['verifier'], console: true });
      const cases: [unknown, RegExp][] = [
        [{}, /^body: must NOT have fewer than 1 properties$/],
        [{ handles: [] }, /^body\.handles: is not a known field$/],
        [{ roles: ['owner'] }, /^body\.roles\[0\]: must be one of admin, verifier$/],
        [{ roles: ['admin', 'admin'] }, /^body\.roles: must not repeat an item/],
        [{ console: 'yes' }, /^body\.console: must be a boolean$/],
      ];
      for (const [body, message] of cases) {
        const refused = await patch(person.id, body);
        assert.equal(refused.status, 400, JSON.stringify(body));
        assert.deepEqual(errorCodes(refused.body), ['INVALID_FIELD']);
        assert.match(refused.body.errors[0].message, message);
      }
      assert.deepEqual((await t.call('GET', `/persons/${person.id}`, { as: org })).body.result, person);
    });

    it('answers 404 for a person of another organisation or none, and 403 for an integration key', async () => {
      const other = await t.org();
      const person = await make({ roles: ['verifier'] });
      const missing = await patch(person.id, { console: true }, other);
      assert.equal(missing.status, 404);
      assert.match(missing.body.errors[0].message, /^path\.person_id: no person of this organisation has this id$/);
      assert.equal((await patch('per_nobody', { console: true })).status, 404);
      const key = (await t.call('POST', '/organizations/api-keys', { as: org, body: { name: 'crm', kind: 'integration' } })).body.result;
      const refused = await patch(person.id, { roles: ['admin'] }, { 'service-orgid': org.orgId, 'service-api-key': key.api_key });
      assert.equal(refused.status, 403);
      assert.deepEqual((await t.call('GET', `/persons/${person.id}`, { as: org })).body.result.roles, ['verifier']);
    });

    it("refuses to take away the organisation's last console administrator, by PATCH or DELETE (409), and changes nothing", async () => {
      const own = await t.org();
      const make = async (body: object) => (await t.call('POST', '/persons', { as: own, body })).body.result;
      const admin = await make({ roles: ['admin'], console: true });
      await make({ roles: ['admin'], console: false }); // an admin outside the console does not count
      await make({ roles: ['verifier'], console: true }); // nor does a console member without the admin role
      const refusals = [
        ...[{ console: false }, { roles: [] }, { roles: ['verifier'] }, { roles: [], console: false }].map((body) => patch(admin.id, body, own)),
        t.call('DELETE', `/persons/${admin.id}`, { as: own }),
      ];
      for (const refused of await Promise.all(refusals)) {
        assert.equal(refused.status, 409);
        assert.deepEqual(errorCodes(refused.body), ['CONFLICT']);
        assert.equal(
          refused.body.errors[0].message,
          "person: is the organisation's last console administrator; make another person a console administrator first",
        );
      }
      assert.deepEqual((await t.call('GET', `/persons/${admin.id}`, { as: own })).body.result, admin);
      assert.deepEqual((await t.call('GET', '/audit/events?type=person.access_changed', { as: own })).body.result, [], 'a refused change writes no event');
      // Once another person is a console administrator, either may go.
      const second = await make({ roles: ['admin'], console: true });
      assert.equal((await patch(admin.id, { console: false }, own)).status, 200);
      assert.equal((await t.call('DELETE', `/persons/${second.id}`, { as: own })).status, 409, 'and the other is now the last');
    });

    it('ends the console sessions of a person taken out of the console', async () => {
      const person = await consolePerson(t, org, { roles: ['verifier'] });
      const agent = new ConsoleAgent(t.url);
      await signInWithPassword(agent, org.orgId, person);
      assert.equal((await agent.get('/console/verify')).status, 200);
      assert.equal((await patch(person.id, { console: false })).status, 200);
      // Given back before the browser's next request: only the ended session row can refuse it now.
      assert.equal((await patch(person.id, { console: true })).status, 200);
      const after = await agent.get('/console/verify');
      assert.equal(after.status, 303);
      assert.equal(after.location, '/console/sign-in?notice=expired');
    });
  });
}
