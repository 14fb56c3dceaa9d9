import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_WRONG_CODES } from '../../src/verification/deps.ts';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, type ConsolePerson, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { codeFrom } from '../helpers/smtp.ts';
import { startVerificationHarness, type VerificationHarness, wrongCode } from '../verification/harness.ts';

const title = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
/** A page's definition list of facts, as label → value (the found page's, an outcome's "who"). */
const facts = (html: string) => {
  const list = /<dl class="facts">([\s\S]*?)<\/dl>/.exec(html)?.[1];
  return list === undefined ? undefined : Object.fromEntries([...list.matchAll(/<dt>([^<]*)<\/dt><dd>([^<]*)<\/dd>/g)].map((m) => [m[1]!, m[2]!]));
};

for (const backend of backends()) {
  describe(`Console: verifying a caller, on ${backend.name}`, () => {
    let h: VerificationHarness;
    let verifier: ConsolePerson;
    let agent: ConsoleAgent;
    let csrf: string;
    let directory: string;

    before(async () => {
      h = await startVerificationHarness(backend);
      verifier = await consolePerson(h.t, h.org, { roles: ['verifier'] });
      agent = new ConsoleAgent(h.t.url);
      csrf = (await signInWithPassword(agent, h.org.orgId, verifier)).csrf;
      directory = (await h.t.service.store.getConnection(h.org.orgId, h.scim.connectionId))!.name;
    });
    after(() => h.close());

    /** Find → send, through the forms; the verification's page and the code the caller got. */
    async function sent(by: { email?: string; identity_id?: string }) {
      const found = await agent.post('/console/verify/find', { connection_id: h.scim.connectionId, email: '', identity_id: '', ...by }, csrf);
      assert.equal(found.status, 200, found.html);
      assert.equal(facts(found.html)?.Directory, directory, 'who was found, in the styled list of facts');
      const identityId = /name="identity_id" value="([^"]+)"/.exec(found.html)![1]!;
      const answer = await agent.post('/console/verify/send', { connection_id: h.scim.connectionId, identity_id: identityId }, csrf);
      assert.equal(answer.status, 303, answer.html);
      return { path: answer.location!, code: codeFrom(await h.smtp.nextMessage()) };
    }

    it('finds a caller by identity id too, says how many attempts a wrong code leaves, and names whom it verified', async () => {
      const caller = await h.provisioned();
      const { path, code } = await sent({ identity_id: caller.id });
      const page = await agent.get(path);
      assert.equal(title(page.html), 'Code sent');
      assert.match(page.html, new RegExp(`A code was sent to ${caller.email.replace('.', '\\.')}`));
      const wrong = await agent.post(path, { code: wrongCode(code) }, csrf);
      assert.equal(wrong.status, 200);
      assert.equal(title(wrong.html), 'Wrong code');
      assert.match(wrong.html, new RegExp(`${MAX_WRONG_CODES - 1} attempts left`));
      const right = await agent.post(path, { code }, csrf);
      assert.equal(title(right.html), 'Verified');
      assert.ok(right.html.includes(`<strong>${caller.email}</strong> is verified.`), 'says who was verified');
      assert.deepEqual(facts(right.html), { 'Email address': caller.email, 'Identity id': caller.id, Directory: directory });
      const again = await agent.get(path);
      assert.equal(title(again.html), 'No longer open');
      assert.ok(again.html.includes(`The code sent to <strong>${caller.email}</strong> can no longer be checked.`));
    });

    it('locks the verification after the fifth wrong code, with 429, naming whom, and a locked one stays locked', async () => {
      const caller = await h.provisioned();
      const { path, code } = await sent({ email: caller.email });
      let last = await agent.post(path, { code: wrongCode(code) }, csrf);
      for (let i = 1; i < MAX_WRONG_CODES; i++) last = await agent.post(path, { code: wrongCode(code) }, csrf);
      assert.equal(last.status, 429);
      assert.equal(title(last.html), 'Locked');
      assert.ok(last.html.includes(`<strong>${caller.email}</strong> is not verified.`), 'says who was refused');
      assert.equal(facts(last.html)?.['Identity id'], caller.id);
      const after = await agent.post(path, { code }, csrf);
      assert.equal(after.status, 429, 'the right code no longer helps');
    });

    it('names the caller the deny-gate refused, deactivated between the code and its check (403)', async () => {
      const caller = await h.provisioned();
      const { path, code } = await sent({ email: caller.email });
      const deactivated = await h.scim.call('PATCH', `/Users/${caller.id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      });
      assert.equal(deactivated.status, 200, JSON.stringify(deactivated.body));
      const denied = await agent.post(path, { code }, csrf);
      assert.equal(denied.status, 403);
      assert.equal(title(denied.html), 'Denied');
      assert.ok(denied.html.includes(`<strong>${caller.email}</strong> is not verified.`), 'says who was refused');
      assert.deepEqual(facts(denied.html), { 'Email address': caller.email, 'Identity id': caller.id, Directory: directory });
    });

    it('names the field and the rule on a bad form, and sends nothing', async () => {
      const both = await agent.post('/console/verify/find', { connection_id: h.scim.connectionId, email: 'a@example.com', identity_id: 'x' }, csrf);
      assert.equal(both.status, 400);
      assert.match(both.html, /email or identity_id: fill in exactly one of the two/);
      const nobody = await agent.post('/console/verify/find', { connection_id: h.scim.connectionId, email: 'nobody@example.com', identity_id: '' }, csrf);
      assert.equal(nobody.status, 404);
      assert.match(nobody.html, /email: no active identity with an email address in this connection/);
      const lookups = await h.t.call('GET', '/audit/events?type=verification.lookup&limit=100', { as: h.org });
      const last = lookups.body.result.at(-1).data;
      assert.deepEqual([last.outcome, last.reason, last.caller_person_id], ['not_found', 'not_in_connection', verifier.id], 'the look-up is audited');
      const directory = await agent.post('/console/verify/find', { connection_id: 'con_nope', email: 'a@example.com', identity_id: '' }, csrf);
      assert.equal(directory.status, 400);
      assert.match(directory.html, /connection_id: choose one of the directories listed/);
      const shortCode = await agent.post('/console/verify/evf_nope', { code: '12' }, csrf);
      assert.equal(title(shortCode.html), 'No longer open');
      assert.equal(facts(shortCode.html), undefined, 'an id of no verification names nobody');
      assert.equal(h.smtp.messages.length, 3, 'only the three earlier tests sent codes');
    });

    it('refuses a send without the CSRF token, and sends no code', async () => {
      const caller = await h.provisioned();
      const before = h.smtp.messages.length;
      const refused = await agent.post('/console/verify/send', { connection_id: h.scim.connectionId, identity_id: caller.id, _csrf: null }, '');
      assert.equal(refused.status, 403);
      assert.equal(h.smtp.messages.length, before);
    });

    it('is for verifiers: an administrator without the role gets 403', async () => {
      const admin = await consolePerson(h.t, h.org, { roles: ['admin'] });
      const other = new ConsoleAgent(h.t.url);
      await signInWithPassword(other, h.org.orgId, admin);
      const page = await other.get('/console/verify');
      assert.equal(page.status, 403);
      assert.match(page.html, /this page is for persons holding the verifier role/);
    });
  });
}
