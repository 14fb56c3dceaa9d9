import assert from 'node:assert/strict';
import type { KeyObject } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { resolveActor } from '../../../src/oauth/grants/exchange-parties.ts';
import type { OAuthDeps } from '../../../src/oauth/grants/grant.ts';
import { SvidError } from '../../../src/oauth/spiffe/svid-error.ts';
import { StorageUnavailableError } from '../../../src/store/errors.ts';
import type { Store } from '../../../src/store/store.ts';
import type { OrganizationConfig } from '../../../src/store/types.ts';
import { backends } from '../../helpers/backends.ts';
import { startFrozenService } from '../../helpers/frozen-service.ts';
import {
  ACCESS_TOKEN_TYPE,
  type ClientCredentials,
  claims,
  clientToken,
  createPerson,
  EXCHANGE,
  forgeServiceJwt,
  JWT_TYPE,
  mintPersonToken,
  type OAuthResponse,
  registerClient,
  serviceSigningKey,
  token,
} from '../../helpers/oauth.ts';
import type { TestOrg, TestService } from '../../helpers/service.ts';

const EARLIER_GENERATION = 'was issued before the person signed out everywhere, had their roles changed or a credential removed; it no longer works';
const b64 = (text: string) => Buffer.from(text).toString('base64url');

/** Who the subject and the actor of a token exchange may be (src/oauth/grants/exchange-parties.ts). */
for (const backend of backends()) {
  describe(`Token exchange parties on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let gateway: ClientCredentials;
    let person: string;
    let key: { kid: string; privateKey: KeyObject };
    /** While set, the store cannot be reached for opaque tokens: what a database outage looks like to the reader. */
    let tokensUnreachable = false;
    /** The client ids the grant looked up with getClient, in order. */
    const clientLookups: string[] = [];

    before(async () => {
      const wrapStore = (real: Store): Store =>
        new Proxy(real, {
          get(target, name) {
            if (name === 'getClient') {
              return (orgId: string, id: string) => {
                clientLookups.push(id);
                return target.getClient(orgId, id);
              };
            }
            if (name !== 'findToken') return Reflect.get(target, name);
            return (hash: string) =>
              tokensUnreachable ? Promise.reject(new StorageUnavailableError(new Error('connection refused'))) : target.findToken(hash);
          },
        });
      t = await startFrozenService(backend, { at: Date.now() }, { wrapStore });
      org = await t.org();
      gateway = await registerClient(t, org);
      person = await createPerson(t, org);
      key = await serviceSigningKey(t);
    });
    after(() => t.close());

    const exchange = (params: Record<string, string>, client: ClientCredentials | undefined = gateway) =>
      token(t, { grant_type: EXCHANGE, subject_token_type: JWT_TYPE, ...params }, client);
    const refusal = (response: OAuthResponse) => [response.status, response.body.error, response.body.error_description, response.body.access_token];
    const personJwt = (id = person) => mintPersonToken(t, org, id, { scope: 'orders:read' });

    it('refuses a subject whose sub names neither a person nor a client, though this server signed it', async () => {
      // The same token naming the person is granted: only the sub refuses the others.
      assert.equal((await exchange({ subject_token: await forgeServiceJwt(t, key, { orgId: org.orgId, subject: person }) })).status, 200);
      // A prefix anywhere but at the start names nothing: neither the person nor the client check applies.
      for (const subject of ['org_x', 'usr_1', 'spiffe://example.org/gateway', 'PER_x', 'usr_per_1', `x${gateway.id}`]) {
        const forged = await forgeServiceJwt(t, key, { orgId: org.orgId, subject });
        const expected = [400, 'invalid_request', "subject_token's sub must be a person or a client of this server", undefined];
        assert.deepEqual(refusal(await exchange({ subject_token: forged })), expected, subject);
        assert.deepEqual(refusal(await exchange({ subject_token: forged }, undefined)), expected, `${subject}, clientless`);
      }
    });

    it("refuses a person's tokens of an earlier generation, as subject and as actor, and takes those of the new one", async () => {
      const someone = await createPerson(t, org);
      const before = await personJwt(someone);
      const actor = await personJwt();
      assert.equal((await exchange({ subject_token: before })).status, 200);
      assert.equal((await exchange({ subject_token: actor, actor_token: before, actor_token_type: JWT_TYPE }, undefined)).status, 200);

      const raised = await t.call('PATCH', `/persons/${someone}`, { as: org, body: { roles: ['verifier'] } });
      assert.equal(raised.status, 200, JSON.stringify(raised.body));

      assert.deepEqual(refusal(await exchange({ subject_token: before })), [400, 'invalid_request', `subject_token ${EARLIER_GENERATION}`, undefined]);
      assert.deepEqual(refusal(await exchange({ subject_token: actor, actor_token: before, actor_token_type: JWT_TYPE }, undefined)), [
        400,
        'invalid_request',
        `actor_token ${EARLIER_GENERATION}`,
        undefined,
      ]);
      const after = await personJwt(someone);
      assert.equal((await exchange({ subject_token: after })).status, 200);
      assert.equal((await exchange({ subject_token: actor, actor_token: after, actor_token_type: JWT_TYPE }, undefined)).status, 200);
    });

    it('answers a token it cannot read for an unreachable database as temporarily unavailable, not as a bad token', async () => {
      const opaque = await clientToken(t, gateway);
      const subject = await personJwt();
      tokensUnreachable = true;
      try {
        const asSubject: Record<string, string> = { subject_token: opaque, subject_token_type: ACCESS_TOKEN_TYPE };
        const asActor: Record<string, string> = { subject_token: subject, actor_token: opaque, actor_token_type: ACCESS_TOKEN_TYPE };
        for (const params of [asSubject, asActor]) {
          const response = await exchange(params);
          assert.deepEqual(refusal(response), [503, 'temporarily_unavailable', 'the database is unreachable; retry shortly', undefined]);
          assert.equal(response.headers.get('retry-after'), '1');
        }
      } finally {
        tokensUnreachable = false;
      }
      assert.equal((await exchange({ subject_token: opaque, subject_token_type: ACCESS_TOKEN_TYPE })).status, 200);
    });

    it("takes a client's opaque token as actor, looking up only a client other than the authenticated one", async () => {
      const other = await registerClient(t, org, { client_name: 'other' });
      const subject = await personJwt();
      for (const [actor, lookups] of [
        [gateway, []],
        [other, [other.id]],
      ] as const) {
        clientLookups.length = 0;
        const response = await exchange({
          subject_token: subject,
          actor_token: await clientToken(t, actor),
          actor_token_type: ACCESS_TOKEN_TYPE,
          requested_token_type: JWT_TYPE,
        });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        assert.deepEqual(claims(response.body.access_token).act, { sub: actor.id });
        assert.deepEqual(clientLookups, lookups, 'the authenticated client has just proven it exists and may exchange');
      }
    });

    it('refuses an actor token whose sub names neither a person nor a client, though this server signed it', async () => {
      const subject = await personJwt();
      for (const sub of ['usr_1', 'spiffe://example.org/gateway', 'usr_per_1']) {
        const actor = await forgeServiceJwt(t, key, { orgId: org.orgId, subject: sub });
        assert.deepEqual(
          refusal(await exchange({ subject_token: subject, actor_token: actor, actor_token_type: JWT_TYPE })),
          [400, 'invalid_request', "actor_token's sub must be a person or a client of this server", undefined],
          sub,
        );
      }
    });

    it('refuses a JWT of another issuer as actor_token when actor_token_type does not say jwt', async () => {
      const foreign = await forgeServiceJwt(t, key, { orgId: org.orgId, subject: 'spiffe://example.org/gateway' }, { iss: 'https://elsewhere.example' });
      assert.deepEqual(refusal(await exchange({ subject_token: await personJwt(), actor_token: foreign, actor_token_type: ACCESS_TOKEN_TYPE })), [
        400,
        'invalid_request',
        `actor_token_type says ${ACCESS_TOKEN_TYPE} but the token is ${JWT_TYPE}`,
        undefined,
      ]);
    });

    it('reads a JWT-shaped actor token whose payload is not a JSON object as a JWT of another issuer: a JWT-SVID', async () => {
      // Were it read as this server's, it would be refused as "actor_token is not a well-formed JWT".
      const header = b64(JSON.stringify({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' }));
      for (const payload of ['not json', 'null', '']) {
        const response = await exchange({ subject_token: await personJwt(), actor_token: `${header}.${b64(payload)}.c2ln`, actor_token_type: JWT_TYPE });
        assert.deepEqual(
          refusal(response),
          [400, 'invalid_request', 'actor_token: the JWT-SVID is not a JWS compact serialization with a JSON object payload', undefined],
          payload,
        );
      }
    });
  });
}

describe('resolveActor', () => {
  it('lets an error of the JWT-SVID verifier that is no SvidError through as it is (a 500), and words an SvidError as invalid_request', async () => {
    const failing = (error: Error) => ({ issuer: { issuer: 'https://tessera.test' }, svids: { verify: () => Promise.reject(error) } }) as unknown as OAuthDeps;
    const resolve = (deps: OAuthDeps) => resolveActor(deps, { token: 'a.b.c', type: JWT_TYPE }, undefined, 'org_a', {} as OrganizationConfig, undefined);
    const bug = new TypeError('a bug in the verifier');
    await assert.rejects(resolve(failing(bug)), (error) => error === bug);
    await assert.rejects(resolve(failing(new SvidError('SVID_MALFORMED', 'the JWT-SVID is odd'))), {
      name: 'OAuthError',
      code: 'invalid_request',
      message: 'actor_token: the JWT-SVID is odd',
    });
  });
});
