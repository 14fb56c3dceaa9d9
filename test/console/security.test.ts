import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import { SoftwareAuthenticator } from '../../src/dev/software-authenticator.ts';
import { importCredential, login } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, type ConsolePerson, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import type { TestOrg, TestService } from '../helpers/service.ts';
import { configurePasskeys, ORIGIN, passkeyLogin, registerPasskey } from '../methods/passkey/passkeys.ts';

const FROZEN = Date.UTC(2031, 4, 6, 7, 8, 0);
const NO_INLINE_SCRIPT_OR_STYLE = /<script(?![^>]*src=)|style=/;
const KEY_URI = 'otpauth://totp/Example:lin%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DP&issuer=Example';
const OLD_CODES = ['ABCDE-FGHJK', 'MNPQR-STVWX'];
const codeAt = (secret: string, at: number) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: at });
const codesOf = (html: string) => [...html.matchAll(/<li><code>([A-Z0-9]{5}-[A-Z0-9]{5})<\/code><\/li>/g)].map((m) => m[1]!);

for (const backend of backends()) {
  describe(`Console "My security", on ${backend.name}`, () => {
    const clock: TestClock = { at: FROZEN };
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      t = await startFrozenService(backend, clock);
      org = await t.org();
      await configurePasskeys(t, org);
    });
    after(() => t.close());

    const credentialsOf = async (personId: string): Promise<{ id: string; type: string; label?: string; params: any }[]> =>
      (await t.call('GET', `/persons/${personId}/credentials`, { as: org })).body.result;

    const signedIn = async (person?: ConsolePerson) => {
      const who = person ?? (await consolePerson(t, org, { roles: [], secondFactor: false }));
      const agent = new ConsoleAgent(t.url);
      await signInWithPassword(agent, org.orgId, who);
      return { who, agent };
    };

    it('lists passkeys, the authenticator app and the password with when each was last used; no inline script or style', async () => {
      clock.at = FROZEN;
      const person = await consolePerson(t, org, { roles: [] });
      const authenticator = new SoftwareAuthenticator();
      await registerPasskey(t, org, person.id, authenticator);
      const { agent } = await signedIn(person);
      const landing = await agent.get('/console/');
      assert.equal(landing.location, '/console/security', 'a person without the verifier role lands here');

      let page = await agent.get('/console/security');
      assert.equal(page.status, 200);
      assert.match(page.html, /<h1>My security<\/h1>/);
      assert.doesNotMatch(page.html, NO_INLINE_SCRIPT_OR_STYLE);
      assert.match(
        page.html,
        /<th scope="row">\(no label\)<\/th><td><time datetime="2031-05-06T07:08:00.000Z">2031-05-06 07:08 UTC<\/time><\/td><td>never<\/td>/,
      );
      assert.match(page.html, /You have a password\. Last used: <time datetime="2031-05-06T07:08:00.000Z">/);
      assert.match(page.html, /<form id="passkey-register" class="stack" data-csrf="[^"]+">/);
      assert.match(page.html, /<script src="\/console\/assets\/webauthn[^"]*" defer>/);
      assert.match(page.html, /action="\/console\/sign-out-everywhere"/);
      assert.match(page.html, /<dt>Recovery codes<\/dt><dd>19 unused of 20<\/dd>/, 'the authenticator app, one recovery code spent at sign-in');

      clock.at += 60_000;
      assert.equal((await passkeyLogin(t, org, person.email, authenticator)).status, 200);
      page = await agent.get('/console/security');
      assert.match(
        page.html,
        /<th scope="row">\(no label\)<\/th><td><time[^>]*>2031-05-06 07:08 UTC<\/time><\/td><td><time[^>]*>2031-05-06 07:09 UTC<\/time><\/td>/,
      );
    });

    it('sends a signed-out browser to sign in', async () => {
      const page = await new ConsoleAgent(t.url).get('/console/security');
      assert.equal(page.status, 303);
      assert.equal(page.location, '/console/sign-in');
    });

    it('adds a passkey through the JSON routes console.js calls, and refuses them without the CSRF header', async () => {
      clock.at = FROZEN;
      const { who, agent } = await signedIn();
      const page = await agent.get('/console/security');
      const csrf = /data-csrf="([^"]+)"/.exec(page.html)![1]!;
      assert.equal((await agent.postJson('/console/security/passkeys/options', {}, '')).status, 403);
      const started = await agent.postJson('/console/security/passkeys/options', {}, csrf);
      assert.equal(started.status, 200, JSON.stringify(started.body));
      const { challenge_id, options } = started.body;
      assert.equal(options.user.id, Buffer.from(who.id).toString('base64url'), "the ceremony is the signed-in person's");
      const authenticator = new SoftwareAuthenticator();
      const response = authenticator.register({ challenge: options.challenge, rpId: options.rp.id, origin: ORIGIN, userId: options.user.id });
      const tooLong = await agent.postJson('/console/security/passkeys', { challenge_id, response, label: 'x'.repeat(101) }, csrf);
      assert.equal(tooLong.status, 400);
      assert.match(tooLong.body.errors[0].message, /label/);
      const done = await agent.postJson('/console/security/passkeys', { challenge_id, response, label: 'work laptop' }, csrf);
      assert.equal(done.status, 200, JSON.stringify(done.body));
      assert.deepEqual(done.body, { location: '/console/security?notice=passkey-added' });
      const after = await agent.get(done.body.location);
      assert.match(after.html, /class="notice" role="status">Passkey added/);
      assert.match(after.html, /<th scope="row">work laptop<\/th>/);
      assert.equal((await passkeyLogin(t, org, who.email, authenticator)).status, 200, 'the new passkey logs in');
    });

    it('sets up an authenticator app end to end: QR and key shown once, a wrong code said so, then sign-in asks for the code', async () => {
      clock.at = FROZEN;
      const { who, agent } = await signedIn();
      const page = await agent.get('/console/security');
      const started = await agent.post('/console/security/totp', {}, page.csrf);
      assert.equal(started.status, 200);
      assert.doesNotMatch(started.html, NO_INLINE_SCRIPT_OR_STYLE);
      assert.match(
        started.html,
        /<div class="qr"><svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 \d+ \d+" role="img" aria-label="[^"]+"[^>]*><rect[^>]*\/><path fill="#000" d="M[\d hvz\-M]+"\/><\/svg><\/div>/,
      );
      const secret = /id="totp-secret">([A-Z2-7]+)</.exec(started.html)![1]!;
      const recoveryCodes = codesOf(started.html);
      assert.equal(recoveryCodes.length, 10);
      const enrolmentId = /name="enrolment_id" value="([^"]+)"/.exec(started.html)![1]!;

      const empty = await agent.post('/console/security/totp/confirm', { enrolment_id: enrolmentId, code: '' }, started.csrf);
      assert.equal(empty.status, 400);
      assert.match(empty.html, /code: is required/);
      const wrong = await agent.post('/console/security/totp/confirm', { enrolment_id: enrolmentId, code: '000000' }, started.csrf);
      assert.equal(wrong.status, 400);
      assert.match(wrong.html, /code: is not a current code of the enrolment&#39;s key/);
      assert.doesNotMatch(wrong.html, /<svg|totp-secret/, 'the key is not shown a second time');
      assert.ok(!recoveryCodes.some((code) => wrong.html.includes(code)));
      assert.match(wrong.html, /Start again with a new key/);
      assert.equal((await credentialsOf(who.id)).filter((c) => c.type === 'totp').length, 0, 'nothing enrolled yet');

      const confirmed = await agent.post('/console/security/totp/confirm', { enrolment_id: enrolmentId, code: codeAt(secret, clock.at) }, wrong.csrf);
      assert.equal(confirmed.status, 303);
      const back = await agent.follow(confirmed);
      assert.match(back.html, /Authenticator app turned on/);
      assert.match(back.html, /<dt>Recovery codes<\/dt><dd>10 unused of 10<\/dd>/);
      assert.ok(!back.html.includes(secret) && !recoveryCodes.some((code) => back.html.includes(code)), 'a reload shows no secret');
      const again = await agent.post('/console/security/totp/confirm', { enrolment_id: enrolmentId, code: codeAt(secret, clock.at) }, back.csrf);
      assert.equal(again.status, 404, 'an enrolment is confirmed once');

      await agent.post('/console/sign-out', {}, back.csrf);
      const form = await agent.get('/console/sign-in');
      const password = await agent.post('/console/sign-in', { organization: org.orgId, email: who.email, password: who.password }, form.csrf);
      assert.equal(password.status, 303);
      assert.equal(password.location, '/console/sign-in/code');
      assert.equal((await agent.get('/console/security')).status, 303, 'not signed in before the code');
      const codePage = await agent.follow(password);
      clock.at += 30_000;
      const code = await agent.post('/console/sign-in/code', { code: codeAt(secret, clock.at) }, codePage.csrf);
      assert.equal(code.status, 303);
      assert.equal((await agent.get('/console/security')).status, 200, 'signed in with password and code');
    });

    it('regenerates the recovery codes: ten new ones shown once, the old ones refused, the new ones accepted', async () => {
      clock.at = FROZEN;
      // Signed in with two factors (their own TOTP), as new recovery codes need (design §5).
      const { who, agent } = await signedIn(await consolePerson(t, org, { roles: [] }));
      const credentialId = await importCredential(t, org, who.id, 'totp', { key_uri: KEY_URI, recovery_codes_total: 10, unused_recovery_codes: OLD_CODES });
      const page = await agent.get('/console/security');
      assert.match(page.html, /<dd>2 unused of 10<\/dd>/);
      const answer = await agent.post(`/console/security/totp/${credentialId}/recovery-codes`, {}, page.csrf);
      assert.equal(answer.status, 200);
      assert.doesNotMatch(answer.html, NO_INLINE_SCRIPT_OR_STYLE);
      const codes = codesOf(answer.html);
      assert.equal(codes.length, 10);
      assert.equal(new Set(codes).size, 10);

      const reload = await agent.get('/console/security');
      assert.match(reload.html, /<dd>10 unused of 10<\/dd>/);
      assert.ok(!codes.some((code) => reload.html.includes(code)), 'shown once');
      const totp = (code: string) => login(t, org, '/authn/totp', { handle: { type: 'email_address', value: who.email }, code });
      assert.equal((await totp(OLD_CODES[0]!)).status, 401, 'an old recovery code no longer works');
      assert.equal((await totp(codes[3]!)).status, 200, 'a new one does');
      clock.at += 30_000;
      assert.equal((await totp(codeAt('JBSWY3DPEHPK3PXPJBSWY3DP', clock.at))).status, 200, 'the app goes on working');

      const events = (await t.call('GET', '/audit/events?type=credential.recovery_codes_regenerated', { as: org })).body.result;
      const event = events.find((e: any) => e.data.credential_id === credentialId);
      assert.deepEqual(event.data, { person_id: who.id, credential_id: credentialId, api_key_id: null });
    });

    it("refuses to remove or change another person's credentials (404) and removes one's own, audited", async () => {
      clock.at = FROZEN;
      // Two factors: a removal needs them once the person holds a second factor.
      const { who, agent } = await signedIn(await consolePerson(t, org, { roles: [] }));
      const other = await consolePerson(t, org, { roles: [] });
      await registerPasskey(t, org, other.id, new SoftwareAuthenticator());
      await importCredential(t, org, other.id, 'totp', { key_uri: KEY_URI, recovery_codes_total: 10, unused_recovery_codes: OLD_CODES });
      const theirs = await credentialsOf(other.id);
      const theirPasskey = theirs.find((c) => c.type === 'public-key')!.id;
      const theirTotp = theirs.find((c) => c.type === 'totp')!.id;
      const page = await agent.get('/console/security');
      for (const path of [`passkeys/${theirPasskey}/remove`, `totp/${theirTotp}/remove`, `totp/${theirTotp}/recovery-codes`]) {
        const answer = await agent.post(`/console/security/${path}`, {}, page.csrf);
        assert.equal(answer.status, 404, path);
      }
      assert.deepEqual(await credentialsOf(other.id), theirs, 'nothing of theirs changed');

      await registerPasskey(t, org, who.id, new SoftwareAuthenticator());
      const ownTotp = await importCredential(t, org, who.id, 'totp', { key_uri: KEY_URI, recovery_codes_total: 10, unused_recovery_codes: OLD_CODES });
      const ownPasskey = (await credentialsOf(who.id)).find((c) => c.type === 'public-key')!.id;
      assert.equal((await agent.post(`/console/security/passkeys/${ownTotp}/remove`, {}, page.csrf)).status, 404, 'a TOTP is not removed as a passkey');

      const withoutToken = await agent.post(`/console/security/passkeys/${ownPasskey}/remove`, { _csrf: null }, '');
      assert.equal(withoutToken.status, 403);
      assert.match(withoutToken.html, /_csrf: is missing or does not belong to this browser/);
      assert.equal((await agent.post('/console/security/totp', { _csrf: null }, '')).status, 403);
      assert.equal((await agent.post(`/console/security/totp/${ownTotp}/recovery-codes`, { _csrf: null }, '')).status, 403);
      assert.equal((await credentialsOf(who.id)).length, 4, 'nothing removed without the token');

      const removed = await agent.post(`/console/security/passkeys/${ownPasskey}/remove`, {}, page.csrf);
      assert.equal(removed.status, 303);
      assert.match((await agent.follow(removed)).html, /Passkey removed\./);
      const totpRemoved = await agent.post(`/console/security/totp/${ownTotp}/remove`, {}, page.csrf);
      assert.equal(totpRemoved.status, 303);
      const after = await agent.follow(totpRemoved);
      assert.match(after.html, /Authenticator app removed\./);
      assert.match(after.html, /You have no passkeys yet/);
      assert.deepEqual((await credentialsOf(who.id)).map((c) => c.type).sort(), ['password', 'totp'], 'the one they signed in with stays');
      const events = (await t.call('GET', '/audit/events?type=credential.deleted', { as: org })).body.result;
      const mine = events.filter((e: any) => e.data.person_id === who.id).map((e: any) => e.data);
      assert.deepEqual(mine.map((d: any) => d.credential_id).sort(), [ownPasskey, ownTotp].sort());
      assert.ok(mine.every((d: any) => d.api_key_id === null && d.via === 'console'));
    });

    it('shows notices only from its own texts, never the query', async () => {
      const { agent } = await signedIn();
      const page = await agent.get('/console/security?notice=%3Cb%3Ehello');
      assert.equal(page.status, 200);
      assert.doesNotMatch(page.html, /hello|class="notice"/);
    });
  });
}
