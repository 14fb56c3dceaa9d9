import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jsonBodyBounds } from '../../src/http/json-body.ts';
import { backends } from '../helpers/backends.ts';
import { type Door, doorsOf, type Operators } from '../verification/doors.ts';
import { startVerificationHarness, type VerificationHarness } from '../verification/harness.ts';
import { assertScimError } from './scim-helpers.ts';

const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const patch = (...Operations: unknown[]) => ({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations });

for (const backend of backends()) {
  describe(`SCIM attribute paths in every form (design §6, issue 24 item 3), on ${backend.name}`, () => {
    let h: VerificationHarness;
    let door: Door;
    let operators: Operators;
    before(async () => {
      h = await startVerificationHarness(backend);
      const made = await doorsOf(h.t, h.org);
      door = made.doors.find((d) => d.name === 'integration')!;
      operators = made.operators;
    });
    after(() => h.close());

    /** A user with a verification started, changed by `request`, then the verify's answer and the User. */
    async function verifiedAfter(method: 'PATCH' | 'PUT', body: (email: string) => unknown) {
      const { identity, id, code } = await h.started(door);
      const changed = await h.scim.call(method, `/Users/${identity.id}`, body(identity.email));
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      const verdict = await door.verify({ verification_id: id, connection_id: h.scim.connectionId, code }, operators.verifier);
      return { verdict, user: (await h.scim.call('GET', `/Users/${identity.id}`)).body, identity };
    }

    it('a deactivation by the fully qualified path makes the deny-gate refuse (regression: stored as an extension)', async () => {
      const { verdict, user } = await verifiedAfter('PATCH', () => patch({ op: 'replace', path: `${CORE}:active`, value: false }));
      assert.equal(verdict.status, 403, JSON.stringify(verdict.body));
      assert.equal(user.active, false);
      assert.deepEqual(user.schemas, [CORE], 'no extension keyed by the core URN');
      assert.equal(user[CORE], undefined);
    });

    for (const [form, body] of [
      ['the URN in upper case', patch({ op: 'Replace', path: `${CORE.toUpperCase()}:ACTIVE`, value: 'False' })],
      ['a value-object key fully qualified', patch({ op: 'replace', value: { [`${CORE}:active`]: false } })],
      ['a value object under the core URN', patch({ op: 'replace', value: { [CORE]: { Active: false, displayName: 'Gone' } } })],
      ['the core URN as path', patch({ op: 'replace', path: CORE, value: { active: false } })],
    ] as const) {
      it(`a deactivation by ${form} makes the deny-gate refuse (regression: stored as an extension)`, async () => {
        const { verdict, user } = await verifiedAfter('PATCH', () => body);
        assert.equal(verdict.status, 403, JSON.stringify(verdict.body));
        assert.deepEqual([user.active, user.schemas], [false, [CORE]]);
      });
    }

    it('a PUT whose body holds the core URN object deactivates (regression: kept as an extension)', async () => {
      const { verdict, user } = await verifiedAfter('PUT', (email) => ({
        userName: email,
        emails: [{ type: 'work', value: email }],
        [CORE]: { active: false },
        [`${ENTERPRISE}:department`]: 'Ops',
      }));
      assert.equal(verdict.status, 403);
      assert.deepEqual([user.active, user[ENTERPRISE], user.schemas], [false, { department: 'Ops' }, [CORE, ENTERPRISE]]);
    });

    it('replace active with null does not reactivate', async () => {
      const { identity, id, code } = await h.started(door);
      assert.equal((await h.scim.call('PATCH', `/Users/${identity.id}`, patch({ op: 'replace', path: 'active', value: false }))).status, 200);
      const removed = await h.scim.call('PATCH', `/Users/${identity.id}`, patch({ op: 'replace', path: 'active', value: null }));
      assert.deepEqual([removed.status, removed.body.active], [200, false], 'absent, and once deactivated, absent is inactive');
      const verdict = await door.verify({ verification_id: id, connection_id: h.scim.connectionId, code }, operators.verifier);
      assert.equal(verdict.status, 403);
      const again = await door.initiate({ connection_id: h.scim.connectionId, identity_id: identity.id });
      assert.equal(again.status, 404, 'nor can a new verification start');
      // Nor does a PUT that leaves active out; an explicit true does reactivate.
      const put = await h.scim.call('PUT', `/Users/${identity.id}`, { userName: identity.email, emails: [{ type: 'work', value: identity.email }] });
      assert.equal(put.body.active, false);
      const back = await h.scim.call('PATCH', `/Users/${identity.id}`, patch({ op: 'replace', value: { active: true } }));
      assert.equal(back.body.active, true);
    });

    it('replace with null removes the attribute (RFC 7644 §3.5.2); a user never deactivated stays active without it', async () => {
      const { verdict, user } = await verifiedAfter('PATCH', () =>
        patch(
          { op: 'replace', path: 'displayName', value: 'Ada' },
          { op: 'replace', path: 'active', value: null },
          { op: 'replace', value: { displayName: null, [`${ENTERPRISE}:employeeNumber`]: '7' } },
        ),
      );
      assert.deepEqual([verdict.status, verdict.body.result], [200, { verified: true }]);
      assert.deepEqual([user.active, user.displayName, user[ENTERPRISE]], [true, undefined, { employeeNumber: '7' }]);
    });

    it('a body nested 10,000 deep is a 400 invalid_syntax, not 500', async () => {
      const { identity } = await h.started(door);
      const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
      for (const type of ['application/scim+json', 'application/json']) {
        for (const [method, path, body] of [
          ['POST', '/Users', `{"userName":"deep@example.com","urn:x:y":{"a":${deep}}}`],
          ['PUT', `/Users/${identity.id}`, `{"userName":"deep@example.com","urn:x:y":{"a":${deep}}}`],
          ['PATCH', `/Users/${identity.id}`, `{"Operations":[{"op":"add","value":{"urn:x:y":{"a":${deep}}}}]}`],
        ] as const) {
          const answer = await h.scim.call(method, path, body, { 'content-type': type });
          assertScimError(answer, 400, 'invalidSyntax');
          assert.match(answer.body.detail, new RegExp(`^body: nests deeper than ${jsonBodyBounds.depth} levels$`), `${method} ${type}`);
        }
      }
    });

    it('a body with more values than the bound is a 400 invalid_syntax naming the limit', async () => {
      const items = Array.from({ length: jsonBodyBounds.values }, () => '0').join(',');
      const answer = await h.scim.call('POST', '/Users', `{"userName":"wide@example.com","urn:x:y":{"a":[${items}]}}`);
      assertScimError(answer, 400, 'invalidSyntax');
      assert.match(answer.body.detail, new RegExp(`^body: holds more than ${jsonBodyBounds.values} values`));
      const braces = await h.scim.call('POST', '/Users', { userName: 'braces@example.com', displayName: '{[{[{[:::' }, {});
      assert.equal(braces.status, 201, 'a body within the bounds is a User');
    });
  });
}
