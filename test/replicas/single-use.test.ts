import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { Secret, TOTP, URI } from 'otpauth';
import { SoftwareAuthenticator } from '../../src/dev/software-authenticator.ts';
import { importCredential, login } from '../helpers/authn.ts';
import { postgresServerUrl, type Replica } from '../helpers/replicas.ts';
import type { Response, TestOrg } from '../helpers/service.ts';
import { asBrowser, configurePasskeys, importParams, loginOptions, ORIGIN, RP_ID } from '../methods/passkey/passkeys.ts';
import { type Helpdesk, type HelpdeskReplicas, outcomeOf, startHelpdeskReplicas } from './helpdesk.ts';

const server = postgresServerUrl();
const USES = 50;
/** The most handles a person may have: each is a counter of its own, so more of the 50 get past the attempt limits. */
const HANDLES = 10;

if (server) {
  describe(`Two service processes on one PostgreSQL: a single-use thing is spent once of ${USES} concurrent uses split over both`, () => {
    let replicas: [Replica, Replica];
    let org: TestOrg;
    let desk: Helpdesk;
    /** The replica the i-th of the concurrent uses goes to: they alternate. */
    const on = (i: number) => replicas[i % 2]!;

    let stack: HelpdeskReplicas | undefined;
    before(async () => {
      stack = await startHelpdeskReplicas(server);
      ({ replicas, org, desk } = stack);
    });
    after(() => stack?.stop());

    /** USES concurrent calls, the i-th on replica i % 2; their answers, and how many were 2xx. Prints what each replica answered. */
    const race = async (t: TestContext, use: (i: number) => Promise<Response>) => {
      const answers = await Promise.all(Array.from({ length: USES }, (_, i) => use(i)));
      const tally = new Map<string, number>();
      for (const [i, answer] of answers.entries()) {
        const key = `replica ${i % 2} ${outcomeOf(answer)}`;
        tally.set(key, (tally.get(key) ?? 0) + 1);
      }
      t.diagnostic([...tally].map(([outcome, count]) => `${outcome}: ${count}`).join(', '));
      return { answers, successes: answers.filter((answer) => answer.status >= 200 && answer.status < 300).length };
    };

    /** A person with HANDLES email handles and a TOTP credential of a fresh key with one recovery code. */
    const totpPerson = async () => {
      const emails = Array.from({ length: HANDLES }, (_, i) => `p${i}.${Math.random().toString(36).slice(2)}@example.com`);
      const created = await on(0).t.call('POST', '/persons', { as: org, body: { handles: emails.map((value) => ({ type: 'email_address', value })) } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const totp = new TOTP({ issuer: 'Example', label: emails[0]!, secret: new Secret() });
      const recoveryCode = 'ABCDE-FGHJK';
      await importCredential(on(1).t, org, created.body.result.id, 'totp', {
        key_uri: totp.toString(),
        recovery_codes_total: 1,
        unused_recovery_codes: [recoveryCode],
      });
      // Use i: the handles in turn, five uses each, spread over both replicas.
      const totpLogin = (i: number, code: string) =>
        login(on(i).t, org, '/authn/totp', { handle: { type: 'email_address', value: emails[Math.floor(i / (USES / HANDLES))]! }, code });
      return { totp, recoveryCode, totpLogin };
    };

    /** Every loser got the one login failure, or was refused by its handle's attempt counter. */
    const assertLoginLosers = (answers: Response[]) => {
      const losers = new Set(answers.filter((answer) => answer.status !== 200).map(outcomeOf));
      assert.ok(
        [...losers].every((code) => ['UNAUTHENTICATED', 'TOO_MANY_ATTEMPTS'].includes(code)),
        [...losers].join(),
      );
    };

    it('a TOTP time step: one code logs in once', async (t) => {
      const { totp, totpLogin } = await totpPerson();
      const code = totp.generate();
      const { answers, successes } = await race(t, (i) => totpLogin(i, code));
      assert.equal(successes, 1, answers.map((answer) => answer.status).join());
      assertLoginLosers(answers);
    });

    it('a TOTP recovery code: it logs in once', async (t) => {
      const { recoveryCode, totpLogin } = await totpPerson();
      const { answers, successes } = await race(t, (i) => totpLogin(i, recoveryCode));
      assert.equal(successes, 1, answers.map((answer) => answer.status).join());
      assertLoginLosers(answers);
    });

    it('a TOTP enrolment: its confirmation makes one credential', async (t) => {
      const person = (await on(0).t.call('POST', '/persons', { as: org, body: {} })).body.result.id as string;
      const started = await on(1).t.call('POST', '/authn/totp/enrolment', { as: org, body: { person_id: person } });
      assert.equal(started.status, 201, JSON.stringify(started.body));
      const { enrolment_id, key_uri } = started.body.result;
      const code = URI.parse(key_uri).generate();
      const { answers, successes } = await race(t, (i) =>
        on(i).t.call('POST', '/authn/totp/enrolment/confirm', { as: org, body: { enrolment_id, code, person_id: person } }),
      );
      assert.equal(successes, 1, answers.map((answer) => answer.status).join());
      assert.deepEqual(new Set(answers.filter((answer) => answer.status !== 201).map(outcomeOf)), new Set(['NOT_FOUND']));
      const credentials = (await on(0).t.call('GET', `/persons/${person}/credentials`, { as: org })).body.result as { type: string }[];
      assert.equal(credentials.filter((credential) => credential.type === 'totp').length, 1);
    });

    it('an email verification code (helpdesk): one verify of the right code succeeds', async (t) => {
      const verifier = await desk.verifier();
      const { id, code } = await verifier.started(on(0), await desk.provision());
      const { answers, successes } = await race(t, (i) => verifier.verify(on(i), id, code));
      const outcomes = answers.map(outcomeOf);
      assert.equal(successes, 1, outcomes.join());
      assert.equal(outcomes.filter((outcome) => outcome === 'verified:true').length, 1, outcomes.join());
      // The losers found it spent, or found its five attempts taken by other right codes, or were stopped by the
      // identity's or the operator's limit: none was judged wrong.
      const refusals = ['NOT_FOUND', 'TOO_MANY_VERIFICATION_ATTEMPTS', 'IDENTITY_RATE_LIMITED', 'OPERATOR_RATE_LIMITED'];
      assert.ok(
        outcomes.every((outcome) => outcome === 'verified:true' || refusals.includes(outcome)),
        outcomes.join(),
      );
      for (const i of [0, 1]) assert.equal(outcomeOf(await verifier.verify(on(i), id, code)), 'NOT_FOUND');
    });

    it('a WebAuthn challenge: one assertion of it logs in', async (t) => {
      await configurePasskeys(on(0).t, org);
      const email = `passkey.${Math.random().toString(36).slice(2)}@example.com`;
      const person = (await on(1).t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: email }] } })).body.result.id;
      const authenticator = new SoftwareAuthenticator();
      await importCredential(on(0).t, org, person, 'public-key', importParams(authenticator));
      const { challenge_id, options } = await loginOptions(on(1).t, org, email);
      // Fifty valid assertions of the one challenge, each with a counter of its own.
      const assertions = Array.from({ length: USES }, () => authenticator.assert({ challenge: options.challenge, rpId: RP_ID, origin: ORIGIN }));
      const { answers, successes } = await race(t, (i) => asBrowser(on(i).t, org, '/authn/webauthn/verify', { challenge_id, response: assertions[i] }));
      assert.equal(successes, 1, answers.map((answer) => answer.status).join());
      assert.deepEqual(new Set(answers.filter((answer) => answer.status !== 200).map(outcomeOf)), new Set(['UNAUTHENTICATED']));
    });
  });
}
