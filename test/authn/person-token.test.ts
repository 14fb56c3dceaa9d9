import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { unreportedAttempts } from '../../src/authn/attempt-metrics.ts';
import { recordAuthnAttempt } from '../../src/authn/audit.ts';
import { issuePersonToken } from '../../src/authn/person-token.ts';
import { KeyRing } from '../../src/oauth/keys/key-ring.ts';
import { TokenIssuer } from '../../src/oauth/tokens/issuer.ts';
import { backends } from '../helpers/backends.ts';
import { claims, createPerson, EXCHANGE, JWT_TYPE, registerClient, token } from '../helpers/oauth.ts';
import { startTestService, TEST_SECRET, type TestOrg, type TestService } from '../helpers/service.ts';

/** A moment far from the wall clock, so a record stamped by Date.now() cannot pass by luck. */
const FROZEN = Date.UTC(2031, 4, 6, 7, 8, 9, 10);

for (const backend of backends()) {
  describe(`Person tokens after authentication, on ${backend.name}`, () => {
    let svc: TestService;
    let org: TestOrg;
    let issuer: TokenIssuer;

    before(async () => {
      svc = await startTestService(backend);
      org = await svc.org();
      // Issued as the service's own issuer would, from its store's signing key (another replica).
      const keys = new KeyRing(svc.service.store, TEST_SECRET);
      await keys.init();
      issuer = new TokenIssuer({ store: svc.service.store, keys, issuer: () => svc.service.issuer, now: Date.now });
    });
    after(() => svc.close());

    it('answers {token, person_id} with amr, and the token endpoint accepts it as a subject', async () => {
      const personId = await createPerson(svc, org);
      const stored = await svc.service.store.getOrganization(org.orgId);
      assert.ok(stored);
      const authTime = Date.now() - 1_500;
      const login = await issuePersonToken(issuer, stored, { personId, amr: ['pwd'], authTime, generation: 3 });
      assert.deepEqual(Object.keys(login).sort(), ['person_id', 'token']);
      assert.equal(login.person_id, personId);
      const payload = claims(login.token);
      assert.deepEqual(
        { sub: payload.sub, oid: payload.oid, amr: payload.amr, auth_time: payload.auth_time, gen: payload.gen },
        { sub: personId, oid: org.orgId, amr: ['pwd'], auth_time: Math.floor(authTime / 1000), gen: 3 },
      );
      assert.equal(payload.exp - payload.iat, stored.config.token_lifetime_ceiling);

      const client = await registerClient(svc, org);
      const exchanged = await token(
        svc,
        { grant_type: EXCHANGE, subject_token: login.token, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE },
        client,
      );
      assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
      const delegated = claims(exchanged.body.access_token);
      assert.deepEqual({ sub: delegated.sub, act: delegated.act }, { sub: personId, act: { sub: client.id } });
    });

    it('refuses to issue without an authentication method', async () => {
      const stored = await svc.service.store.getOrganization(org.orgId);
      assert.ok(stored);
      await assert.rejects(issuePersonToken(issuer, stored, { personId: 'per_x', amr: [], authTime: Date.now(), generation: 0 }), TypeError);
    });

    it('records authn.attempt events with the injected clock and only the fields it names', async () => {
      const personId = await createPerson(svc, org);
      await recordAuthnAttempt(
        svc.service.store,
        () => FROZEN,
        {
          orgId: org.orgId,
          method: 'password',
          personId,
          credentialId: 'crd_x',
          outcome: 'failure',
          reason: 'wrong_secret',
        },
        unreportedAttempts,
      );
      const events = await svc.call('GET', '/audit/events?type=authn.attempt', { as: org });
      assert.equal(events.body.result.length, 1);
      const [event] = events.body.result;
      assert.equal(event.occurred_at, new Date(FROZEN).toISOString());
      assert.deepEqual(event.data, { method: 'password', person_id: personId, credential_id: 'crd_x', outcome: 'failure', reason: 'wrong_secret' });
    });
  });
}
