import assert from 'node:assert/strict';
import type { KeyObject } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import {
  type ClientCredentials,
  claims,
  createPerson,
  EXCHANGE,
  forgeServiceJwt,
  introspect,
  JWT_TYPE,
  type OAuthResponse,
  registerClient,
  serviceSigningKey,
  token,
} from '../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

/** An act chain of `depth` actors, newest first. */
function chain(depth: number): Record<string, unknown> {
  let act: Record<string, unknown> | undefined;
  for (let level = depth; level >= 1; level--) act = { sub: `cli_actor${level}`, ...(act ? { act } : {}) };
  return act!;
}

for (const backend of backends()) {
  describe(`Claims of JWTs presented to the token endpoint on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let gateway: ClientCredentials;
    let person: string;
    let assistant: string;
    let key: { kid: string; privateKey: KeyObject };
    const now = () => Math.floor(Date.now() / 1000);
    /** A person JWT of `person`, valid unless `claims` break it. */
    const subjectJwt = (claimsOverride: Record<string, unknown> = {}) => forgeServiceJwt(t, key, { orgId: org.orgId, subject: person }, claimsOverride);
    const exchangeSubject = async (subject: string, extra: Record<string, string> = {}) =>
      token(t, { grant_type: EXCHANGE, subject_token: subject, subject_token_type: JWT_TYPE, ...extra }, gateway);
    const exchangeActor = async (actor: string) =>
      token(
        t,
        { grant_type: EXCHANGE, subject_token: await subjectJwt(), subject_token_type: JWT_TYPE, actor_token: actor, actor_token_type: JWT_TYPE },
        gateway,
      );
    const refusedWith = (response: OAuthResponse, mention: RegExp) => {
      assert.equal(response.status, 400, JSON.stringify(response.body));
      assert.equal(response.body.error, 'invalid_request');
      assert.match(response.body.error_description, mention);
      assert.equal(response.body.access_token, undefined);
    };

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      gateway = await registerClient(t, org);
      person = await createPerson(t, org);
      assistant = await createPerson(t, org);
      key = await serviceSigningKey(t);
    });
    after(() => t.close());

    it('accepts the forged baseline subject and actor, so each refusal below is about its one claim', async () => {
      assert.equal((await exchangeSubject(await subjectJwt())).status, 200);
      const actor = await forgeServiceJwt(t, key, { orgId: org.orgId, subject: assistant });
      const response = await exchangeActor(actor);
      assert.equal(response.status, 200, JSON.stringify(response.body));
    });

    describe('aud', () => {
      it('refuses a subject_token without aud', async () => {
        refusedWith(await exchangeSubject(await subjectJwt({ aud: undefined })), /^subject_token .*"aud"/);
      });
      it('refuses a subject_token whose aud is another service', async () => {
        refusedWith(await exchangeSubject(await subjectJwt({ aud: 'https://elsewhere.example' })), /^subject_token .*"aud"/);
      });
      it('accepts an aud list that names this service', async () => {
        assert.equal((await exchangeSubject(await subjectJwt({ aud: ['https://elsewhere.example', t.service.issuer] }))).status, 200);
      });
      it('refuses an actor_token whose aud is another service', async () => {
        refusedWith(
          await exchangeActor(await forgeServiceJwt(t, key, { orgId: org.orgId, subject: assistant }, { aud: 'https://elsewhere.example' })),
          /^actor_token .*"aud"/,
        );
      });
    });

    describe('iat, nbf and exp', () => {
      it('refuses a subject_token issued more than 60 seconds in the future', async () => {
        refusedWith(await exchangeSubject(await subjectJwt({ iat: now() + 120, exp: now() + 720 })), /^subject_token was issued in the future \("iat"/);
      });
      it('accepts a subject_token whose iat is ahead by less than the 60 seconds of skew', async () => {
        assert.equal((await exchangeSubject(await subjectJwt({ iat: now() + 30 }))).status, 200);
      });
      it('refuses an actor_token issued more than 60 seconds in the future', async () => {
        const actor = await forgeServiceJwt(t, key, { orgId: org.orgId, subject: assistant }, { iat: now() + 3_600, exp: now() + 4_200 });
        refusedWith(await exchangeActor(actor), /^actor_token was issued in the future \("iat"/);
      });
      it('refuses a subject_token whose nbf is in the future', async () => {
        refusedWith(await exchangeSubject(await subjectJwt({ nbf: now() + 120 })), /^subject_token is not valid yet \("nbf"/);
      });
      it('refuses a subject_token whose iat is not a number', async () => {
        refusedWith(await exchangeSubject(await subjectJwt({ iat: 'yesterday' })), /^subject_token .*"iat"/);
      });
      it('refuses an expired subject_token', async () => {
        refusedWith(await exchangeSubject(await subjectJwt({ iat: now() - 700, exp: now() - 100 })), /^subject_token has expired/);
      });
    });

    describe('act', () => {
      const malformed: Array<[string, unknown]> = [
        ['a string', 'cli_someone'],
        ['null', null],
        ['an array', [{ sub: 'cli_someone' }]],
        ['an object without sub', {}],
        ['a sub that is not a string', { sub: 42 }],
        ['an empty sub', { sub: '' }],
        ['a nested act that is not an object', { sub: 'cli_a', act: 'cli_b' }],
        ['a nested act without a string sub', { sub: 'cli_a', act: { sub: ['cli_b'] } }],
        ['members besides sub and act', { sub: 'cli_a', admin: true }],
        ['11 actors', chain(11)],
      ];
      for (const [name, act] of malformed) {
        it(`refuses a subject_token whose act is ${name}`, async () => {
          refusedWith(await exchangeSubject(await subjectJwt({ act })), /^subject_token has a malformed claim: "act"/);
        });
      }

      it('regression: a malformed act of a JWT subject was copied into the delegated token', async () => {
        const response = await exchangeSubject(await subjectJwt({ act: { sub: 'cli_a', act: { sub: 'cli_b', scope: 'admin' } } }), {
          requested_token_type: JWT_TYPE,
        });
        refusedWith(response, /"act"/);
      });

      it('copies a well-formed act chain of 9 actors under the new actor', async () => {
        const response = await exchangeSubject(await subjectJwt({ act: chain(9) }), { requested_token_type: JWT_TYPE });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        assert.deepEqual(claims(response.body.access_token).act, { sub: gateway.id, act: chain(9) });
      });

      it('reads a chain of exactly 10 actors, then refuses to delegate it further (MAX_ACT_DEPTH)', async () => {
        refusedWith(await exchangeSubject(await subjectJwt({ act: chain(10) })), /act chain already has 10 actors/);
      });

      it('refuses an actor_token whose act is malformed before anything else', async () => {
        const actor = await forgeServiceJwt(t, key, { orgId: org.orgId, subject: assistant }, { act: 'cli_someone' });
        refusedWith(await exchangeActor(actor), /^actor_token has a malformed claim: "act"/);
      });
    });

    describe('may_act', () => {
      const malformed: Array<[string, unknown]> = [
        ['a string', 'cli_someone'],
        ['null', null],
        ['an object without sub', {}],
        ['a sub that is not a string', { sub: 7 }],
        ['members besides sub', { sub: 'cli_someone', act: { sub: 'cli_other' } }],
      ];
      for (const [name, mayAct] of malformed) {
        it(`refuses a subject_token whose may_act is ${name}`, async () => {
          refusedWith(await exchangeSubject(await subjectJwt({ may_act: mayAct })), /^subject_token has a malformed claim: "may_act"/);
        });
      }

      it('regression: members of may_act besides sub were copied into the delegated token', async () => {
        const response = await exchangeSubject(await subjectJwt({ may_act: { sub: gateway.id, scope: 'admin' } }), { requested_token_type: JWT_TYPE });
        refusedWith(response, /"may_act"/);
      });

      it('still enforces a well-formed may_act', async () => {
        assert.equal((await exchangeSubject(await subjectJwt({ may_act: { sub: gateway.id } }))).status, 200);
        refusedWith(await exchangeSubject(await subjectJwt({ may_act: { sub: 'cli_someone_else' } })), /may_act does not name this actor/);
      });
    });

    it('reports such tokens inactive on introspection', async () => {
      for (const bad of [
        await subjectJwt({ aud: undefined }),
        await subjectJwt({ iat: now() + 600, exp: now() + 1_200 }),
        await subjectJwt({ act: 'x' }),
        await subjectJwt({ nbf: now() + 600 }),
      ]) {
        assert.deepEqual((await introspect(t, bad, org)).body, { active: false });
      }
      assert.equal((await introspect(t, await subjectJwt(), org)).body.active, true, 'the baseline introspects active');
    });

    it('applies the same checks to a JWT delegated from a person', async () => {
      const delegated = await subjectJwt({ client_id: gateway.id, act: { sub: gateway.id } });
      assert.equal((await exchangeSubject(delegated)).status, 200);
      refusedWith(
        await exchangeSubject(await subjectJwt({ client_id: gateway.id, act: { sub: gateway.id }, aud: 'https://elsewhere.example' })),
        /^subject_token .*"aud"/,
      );
      refusedWith(
        await exchangeSubject(await subjectJwt({ client_id: gateway.id, act: { sub: gateway.id, act: [] } })),
        /^subject_token has a malformed claim: "act"/,
      );
    });
  });
}
