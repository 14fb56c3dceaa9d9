import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SoftwareAuthenticator } from '../../src/dev/software-authenticator.ts';
import { importCredential, passwordJwt, passwordPerson, signInWithTwoFactors, twoFactorPerson } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { ACCESS_TOKEN_TYPE, claims, EXCHANGE, introspect, JWT_TYPE, mintPersonToken, registerClient, token } from '../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';
import { importParams } from './webauthn/passkeys.ts';

const EARLIER = /was issued before the person signed out everywhere, had their roles changed or a credential removed; it no longer works$/;

/**
 * Design §5, "sessions that end": each event that must end what a person signed in to before
 * raises their generation, and every place that accepts a person JWT refuses an earlier one.
 * (The console's side, sign out everywhere included, is test/console/two-factors.test.ts.)
 */
for (const backend of backends()) {
  describe(`A person's generation ends their earlier tokens, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
    });
    after(() => t.close());

    const as = (jwt: string) => ({ 'service-orgid': org.orgId, authorization: `Bearer ${jwt}` });
    const exchange = async (subject: string, actor?: string, requested = JWT_TYPE) => {
      const client = await registerClient(t, org);
      const params: Record<string, string> = { grant_type: EXCHANGE, subject_token: subject, subject_token_type: JWT_TYPE, requested_token_type: requested };
      if (actor) Object.assign(params, { actor_token: actor, actor_token_type: JWT_TYPE });
      return token(t, params, client);
    };

    /** Everything a person's tokens are good for, before and after `raise`: each refused after, with the one rule's message. */
    async function endsEverything(raise: (person: { id: string }) => Promise<void>) {
      const person = await twoFactorPerson(t, org, { roles: ['verifier'], console: true });
      const signedIn = await signInWithTwoFactors(t, org, person);
      const minted = await mintPersonToken(t, org, person.id);
      const delegatedJwt = (await exchange(signedIn)).body.access_token as string;
      const delegatedOpaque = (await exchange(signedIn, undefined, ACCESS_TOKEN_TYPE)).body.access_token as string;
      const actorFor = await mintPersonToken(t, org, (await passwordPerson(t, org)).id);
      assert.equal((await exchange(actorFor, minted)).status, 200, 'as an actor, before');
      assert.equal((await t.call('POST', '/authn/totp/enrolment', { as: as(signedIn), body: {} })).status, 201, 'managing factors, before');

      await raise(person);

      for (const jwt of [signedIn, minted, delegatedJwt]) {
        const asSubject = await exchange(jwt);
        assert.deepEqual([asSubject.status, asSubject.body.error], [400, 'invalid_request']);
        assert.match(asSubject.body.error_description, new RegExp(`^subject_token ${EARLIER.source}`));
        assert.deepEqual((await introspect(t, jwt, org)).body, { active: false });
      }
      assert.match((await exchange(actorFor, minted)).body.error_description, new RegExp(`^actor_token ${EARLIER.source}`));
      assert.deepEqual((await introspect(t, delegatedOpaque, org)).body, { active: false }, 'opaque tokens are revoked with the raise');
      const factors = await t.call('POST', '/authn/totp/enrolment', { as: as(signedIn), body: {} });
      assert.deepEqual([factors.status, factors.body.errors[0].message], [401, `header Authorization: the token ${EARLIER.source.replace(/\\|\$$/g, '')}`]);

      const again = await signInWithTwoFactors(t, org, person);
      assert.ok(claims(again).gen >= 1, 'a new sign-in carries the new generation');
      assert.equal((await exchange(again)).status, 200);
      const chained = claims((await exchange(again)).body.access_token);
      assert.equal(chained.gen, claims(again).gen, 'and so do the tokens exchanged from it');
    }

    it('regression: deleting a credential of the person ended none of their tokens (design §5)', async () => {
      await endsEverything(async (person) => {
        const extra = await importCredential(t, org, person.id, 'public-key', importParams(new SoftwareAuthenticator()));
        assert.equal((await t.call('DELETE', `/persons/${person.id}/credentials/${extra}`, { as: org })).status, 204);
      });
    });

    it('regression: a change of roles left the person’s earlier tokens working (design §5)', async () => {
      await endsEverything(async (person) => {
        const changed = await t.call('PATCH', `/persons/${person.id}`, { as: org, body: { roles: ['verifier', 'admin'] } });
        assert.equal(changed.status, 200, JSON.stringify(changed.body));
      });
    });

    it('ends nothing when the roles sent are the ones held, or only console membership changes', async () => {
      const person = await passwordPerson(t, org, { roles: ['verifier', 'admin'], console: true });
      const jwt = await passwordJwt(t, org, person);
      assert.equal((await t.call('PATCH', `/persons/${person.id}`, { as: org, body: { roles: ['admin', 'verifier'] } })).status, 200);
      assert.equal((await t.call('PATCH', `/persons/${person.id}`, { as: org, body: { console: false } })).status, 200);
      assert.equal((await exchange(jwt)).status, 200);
      assert.equal((await introspect(t, jwt, org)).body.active, true);
    });
  });
}
