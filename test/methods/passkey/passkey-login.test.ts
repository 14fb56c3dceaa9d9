import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { SoftwareAuthenticator } from '../../../src/dev/software-authenticator.ts';
import { LOGIN_CEREMONIES_PER_SOURCE } from '../../../src/methods/passkey/ceremonies-per-source.ts';
import { attemptEvents, importCredential, loginPerson, unauditedAttempts } from '../../helpers/authn.ts';
import { backends } from '../../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../../helpers/frozen-service.ts';
import { claims, EXCHANGE, JWT_TYPE, registerClient, token } from '../../helpers/oauth.ts';
import { errorCodes, type TestOrg, type TestService } from '../../helpers/service.ts';
import { asBrowser, configurePasskeys, importParams, loginOptions, ORIGIN, passkeyLogin, RP_ID, registerPasskey, storedAuthenticator } from './passkeys.ts';

const GENERIC_401 = 'authentication: the handle and the secret do not match';

for (const backend of backends()) {
  describe(`Passkey login on ${backend.name}`, () => {
    const clock: TestClock = { at: Date.parse('2026-03-01T12:00:00Z') };
    let t: TestService;
    let org: TestOrg;

    /** A person with an imported passkey of a fresh software authenticator. */
    async function personWithPasskey(within = org, signCount = 0) {
      const person = await loginPerson(t, within);
      const authenticator = new SoftwareAuthenticator({ signCount });
      await importCredential(t, within, person.id, 'public-key', importParams(authenticator));
      return { person, authenticator };
    }

    function expectGeneric401(response: { status: number; body: any }) {
      assert.equal(response.status, 401, JSON.stringify(response.body));
      assert.deepEqual(errorCodes(response.body), ['UNAUTHENTICATED']);
      assert.equal(response.body.errors[0].message, GENERIC_401);
    }

    before(async () => {
      t = await startFrozenService(backend, clock);
      org = await t.org();
      await configurePasskeys(t, org);
    });
    after(() => t.close());

    it('logs in with an imported passkey: a person JWT with amr hwk, user (verified) and mfa, the counter and last_used written back', async () => {
      const { person, authenticator } = await personWithPasskey();
      const response = await passkeyLogin(t, org, person.email, authenticator);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      assert.equal(response.body.result.person_id, person.id);
      const jwt = claims(response.body.result.token);
      assert.deepEqual([jwt.sub, jwt.oid, jwt.amr], [person.id, org.orgId, ['hwk', 'user', 'mfa']]);
      assert.deepEqual(await storedAuthenticator(t, org, person.id), {
        aaguid: importParams(authenticator).authenticator.aaguid,
        sign_count: 1,
        clone_warning: false,
      });
      const listed = await t.call('GET', `/persons/${person.id}/credentials`, { as: org });
      assert.equal(listed.body.result[0].last_used, new Date(clock.at).toISOString());
    });

    it('answers options of one shape whether or not the handle names a person, with no credential listed', async () => {
      const { person } = await personWithPasskey();
      const known = await loginOptions(t, org, person.email);
      const unknown = await loginOptions(t, org, 'nobody-at-all@example.com');
      assert.deepEqual(Object.keys(known.options).sort(), Object.keys(unknown.options).sort());
      for (const { options } of [known, unknown]) {
        assert.deepEqual([options.rpId, options.allowCredentials, options.userVerification, options.timeout], [RP_ID, [], 'required', 300_000]);
      }
      assert.notEqual(known.options.challenge, unknown.options.challenge);
      assert.match(known.challenge_id, /^wch_/);
    });

    it('refuses a handle that names nobody with the same 401, counted as a metric, never in the audit log', async () => {
      const own = await t.org();
      await configurePasskeys(t, own);
      const stranger = new SoftwareAuthenticator();
      const unknown = { method: 'webauthn', outcome: 'failure', reason: 'unknown_handle' };
      const before = await unauditedAttempts(t, unknown);
      expectGeneric401(await passkeyLogin(t, own, 'nobody-at-all@example.com', stranger));
      assert.deepEqual(await attemptEvents(t, own), []);
      assert.equal(await unauditedAttempts(t, unknown), before + 1);
    });

    const refusals: [string, { origin?: string; rpId?: string }][] = [
      ['from an origin the organisation does not list', { origin: 'https://evil.example.net' }],
      ['for another RP id', { rpId: 'evil.example.net' }],
    ];
    for (const [name, variant] of refusals) {
      it(`refuses an assertion ${name} with the generic 401, and the counter stays`, async () => {
        const { person, authenticator } = await personWithPasskey();
        expectGeneric401(await passkeyLogin(t, org, person.email, authenticator, variant));
        assert.equal((await storedAuthenticator(t, org, person.id)).sign_count, 0);
      });
    }

    it("refuses another person's passkey for this person's handle", async () => {
      const a = await personWithPasskey();
      const b = await personWithPasskey();
      expectGeneric401(await passkeyLogin(t, org, a.person.email, b.authenticator));
    });

    it("regression: a registered passkey's assertion naming another user handle logged in; now it is the generic 401", async () => {
      const own = await t.org();
      await configurePasskeys(t, own);
      const person = await loginPerson(t, own);
      const other = await loginPerson(t, own);
      const authenticator = new SoftwareAuthenticator();
      await registerPasskey(t, own, person.id, authenticator);
      expectGeneric401(await passkeyLogin(t, own, person.email, authenticator, { userHandle: Buffer.from(other.id).toString('base64url') }));
      expectGeneric401(await passkeyLogin(t, own, person.email, authenticator, { userHandle: 'c29tZW9uZSBlbHNl' }));
      const events = await attemptEvents(t, own);
      assert.deepEqual(
        events.map((e) => [e.person_id, e.outcome, e.reason]),
        [
          [person.id, 'failure', 'user_handle_mismatch'],
          [person.id, 'failure', 'user_handle_mismatch'],
        ],
      );
      assert.equal((await storedAuthenticator(t, own, person.id)).sign_count, 0, 'nothing of the refused assertions was stored');
    });

    it("logs in with a registered passkey whose assertion carries its person's user handle, or none", async () => {
      const person = await loginPerson(t, org);
      const authenticator = new SoftwareAuthenticator();
      await registerPasskey(t, org, person.id, authenticator);
      assert.equal(authenticator.userHandle, Buffer.from(person.id).toString('base64url'), 'the options named the person');
      const named = await passkeyLogin(t, org, person.email, authenticator);
      assert.equal(named.status, 200, JSON.stringify(named.body));
      const without = await passkeyLogin(t, org, person.email, authenticator, { userHandle: null });
      assert.equal(without.status, 200, JSON.stringify(without.body));
    });

    it('logs in with an imported passkey whatever user handle it carries: the one it was registered with elsewhere is not known here', async () => {
      const { person, authenticator } = await personWithPasskey();
      assert.notEqual(authenticator.userHandle, Buffer.from(person.id).toString('base64url'));
      assert.equal((await passkeyLogin(t, org, person.email, authenticator)).status, 200);
      assert.equal((await passkeyLogin(t, org, person.email, authenticator, { userHandle: null })).status, 200);
    });

    it('refuses the second use of a challenge (a replay) with 401', async () => {
      const { person, authenticator } = await personWithPasskey();
      const { challenge_id, options } = await loginOptions(t, org, person.email);
      const assertion = authenticator.assert({ challenge: options.challenge, rpId: RP_ID, origin: ORIGIN });
      assert.equal((await asBrowser(t, org, '/authn/webauthn/verify', { challenge_id, response: assertion })).status, 200);
      expectGeneric401(await asBrowser(t, org, '/authn/webauthn/verify', { challenge_id, response: assertion }));
      const fresh = authenticator.assert({ challenge: options.challenge, rpId: RP_ID, origin: ORIGIN });
      expectGeneric401(await asBrowser(t, org, '/authn/webauthn/verify', { challenge_id, response: fresh }));
    });

    it("refuses an old challenge answered to a new challenge's id", async () => {
      const { person, authenticator } = await personWithPasskey();
      const old = await loginOptions(t, org, person.email);
      const current = await loginOptions(t, org, person.email);
      const response = authenticator.assert({ challenge: old.options.challenge, rpId: RP_ID, origin: ORIGIN });
      expectGeneric401(await asBrowser(t, org, '/authn/webauthn/verify', { challenge_id: current.challenge_id, response }));
    });

    it('refuses a challenge answered after its five minutes', async () => {
      const { person, authenticator } = await personWithPasskey();
      const { challenge_id, options } = await loginOptions(t, org, person.email);
      clock.at += 5 * 60 * 1000;
      const response = authenticator.assert({ challenge: options.challenge, rpId: RP_ID, origin: ORIGIN });
      expectGeneric401(await asBrowser(t, org, '/authn/webauthn/verify', { challenge_id, response }));
    });

    it('logs in with a counter that went backwards, storing clone_warning and keeping the higher count', async () => {
      const own = await t.org();
      await configurePasskeys(t, own);
      const { person, authenticator } = await personWithPasskey(own, 41);
      assert.equal((await passkeyLogin(t, own, person.email, authenticator)).status, 200);
      const cloned = await passkeyLogin(t, own, person.email, authenticator, { signCount: 10 });
      assert.equal(cloned.status, 200, JSON.stringify(cloned.body));
      assert.deepEqual(await storedAuthenticator(t, own, person.id).then((a) => [a.sign_count, a.clone_warning]), [42, true]);
      const reasons = (await attemptEvents(t, own)).map((e) => [e.outcome, e.reason]);
      assert.deepEqual(
        reasons.sort(),
        [
          ['success', 'clone_warning'],
          ['success', null],
        ].sort(),
      );
    });

    it('refuses a counter that went backwards when the organisation says so, stores the warning, and refuses the flagged passkey from then on', async () => {
      const strict = await t.org();
      await configurePasskeys(t, strict, { webauthn_refuse_clone_warning: true });
      const { person, authenticator } = await personWithPasskey(strict, 7);
      expectGeneric401(await passkeyLogin(t, strict, person.email, authenticator, { signCount: 7 }));
      assert.deepEqual(await storedAuthenticator(t, strict, person.id).then((a) => [a.sign_count, a.clone_warning]), [7, true]);
      // regression: a clone that then reported a higher counter logged in again under the refuse policy
      expectGeneric401(await passkeyLogin(t, strict, person.email, authenticator, { signCount: 100 }));
      expectGeneric401(await passkeyLogin(t, strict, person.email, authenticator, { signCount: 0xffffffff }));
    });

    it('audits every attempt without the challenge, the signature or the handle', async () => {
      const own = await t.org();
      await configurePasskeys(t, own);
      const { person, authenticator } = await personWithPasskey(own);
      await passkeyLogin(t, own, person.email, authenticator);
      await passkeyLogin(t, own, person.email, authenticator, { origin: 'https://evil.example.net' });
      const events = await attemptEvents(t, own);
      assert.deepEqual(events.map((e) => [e.method, e.person_id, e.outcome, e.reason]).sort(), [
        ['webauthn', person.id, 'failure', 'assertion_refused'],
        ['webauthn', person.id, 'success', null],
      ]);
      assert.doesNotMatch(JSON.stringify(events), new RegExp(`${person.email}|signature|challenge`));
    });

    it('issues a person JWT that /oauth2/tokens accepts as subject_token', async () => {
      const { person, authenticator } = await personWithPasskey();
      const client = await registerClient(t, org);
      const loggedIn = await passkeyLogin(t, org, person.email, authenticator);
      const exchanged = await token(
        t,
        { grant_type: EXCHANGE, subject_token: loggedIn.body.result.token, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE },
        client,
      );
      assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
      assert.deepEqual([claims(exchanged.body.access_token).sub, claims(exchanged.body.access_token).act], [person.id, { sub: client.id }]);
    });

    it('answers 409 WEBAUTHN_NOT_CONFIGURED naming what an organisation has not set', async () => {
      const bare = await t.org();
      const response = await asBrowser(t, bare, '/authn/webauthn/options', { handle: { type: 'email_address', value: 'a@example.com' } });
      assert.equal(response.status, 409);
      assert.deepEqual(errorCodes(response.body), ['WEBAUTHN_NOT_CONFIGURED']);
      assert.match(response.body.errors[0].message, /webauthn_rp_id and webauthn_origins/);
      await t.call('PATCH', '/organizations/config', { as: bare, body: { webauthn_rp_id: RP_ID } });
      const verify = await asBrowser(t, bare, '/authn/webauthn/verify', { challenge_id: 'wch_x', response: { id: 'x', type: 'public-key' } });
      assert.deepEqual(
        [verify.status, verify.body.errors[0].message],
        [409, 'passkeys: the organisation has not set webauthn_origins (PATCH /organizations/config), so no passkey ceremony can run'],
      );
    });

    const badBodies: [string, string, unknown, RegExp][] = [
      ['options with an unknown field', '/authn/webauthn/options', { user: 'lin' }, /^body\.user: is not a known field$/],
      ['options with a malformed email', '/authn/webauthn/options', { handle: { type: 'email_address', value: 'not an address' } }, /^body\.handle\.value: /],
      ['verify without a response', '/authn/webauthn/verify', { challenge_id: 'wch_x' }, /^body\.response: is required$/],
      [
        'verify with an unknown field',
        '/authn/webauthn/verify',
        { challenge_id: 'wch_x', response: { id: 'x', type: 'public-key' }, extra: 1 },
        /^body\.extra: is not a known field$/,
      ],
    ];
    for (const [name, path, body, message] of badBodies) {
      it(`refuses ${name} with 400 naming the field`, async () => {
        const response = await asBrowser(t, org, path, body);
        assert.equal(response.status, 400, JSON.stringify(response.body));
        assert.match(response.body.errors[0].message, message);
      });
    }

    it(`regression: one address may start ${LOGIN_CEREMONIES_PER_SOURCE.limit} login ceremonies a minute, then 429 with Retry-After (it stored 3,700 challenges a second); another address is not held`, async () => {
      const own = await t.org();
      await configurePasskeys(t, own);
      const start = () => asBrowser(t, own, '/authn/webauthn/options', {});
      for (let i = 0; i < LOGIN_CEREMONIES_PER_SOURCE.limit; i++) assert.equal((await start()).status, 200, `start ${i + 1}`);
      const over = await start();
      assert.deepEqual([over.status, errorCodes(over.body)], [429, ['TOO_MANY_CEREMONIES']]);
      assert.equal(over.headers.get('retry-after'), '60');
      assert.equal((await optionsFrom(t.url, own.orgId, '127.0.0.2')).status, 200, 'another address starts its own');
      clock.at += LOGIN_CEREMONIES_PER_SOURCE.windowMs;
      assert.equal((await start()).status, 200, 'a minute on, the address starts again');
    });
  });
}

/** POST /authn/webauthn/options from another loopback address (Linux routes all of 127/8 to loopback). */
function optionsFrom(url: string, orgId: string, localAddress: string): Promise<{ status: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        host: hostname,
        port,
        path: '/authn/webauthn/options',
        method: 'POST',
        localAddress,
        headers: { 'service-orgid': orgId, 'content-type': 'application/json' },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
      },
    );
    sent.on('error', reject);
    sent.end('{}');
  });
}
