import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SignJWT } from 'jose';
import { KeyRing } from '../../../src/oauth/keys/key-ring.ts';
import { MAX_ACT_DEPTH } from '../../../src/oauth/tokens/delegation-claims.ts';
import { TokenIssuer } from '../../../src/oauth/tokens/issuer.ts';
import { opaqueTokenKey } from '../../../src/oauth/tokens/opaque-token.ts';
import { TokenReader, TokenRejected } from '../../../src/oauth/tokens/reader.ts';
import { createOrganization } from '../../../src/organizations/create-organization.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';
import type { OpaqueToken } from '../../../src/store/types.ts';
import { backends } from '../../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../../helpers/frozen-service.ts';
import {
  ACCESS_TOKEN_TYPE,
  type ClientCredentials,
  createPerson,
  EXCHANGE,
  introspect,
  JWT_TYPE,
  mintPersonToken,
  type OAuthResponse,
  registerClient,
  token,
} from '../../helpers/oauth.ts';
import type { TestOrg, TestService } from '../../helpers/service.ts';

const ISSUER = 'https://tessera.test';
/** The frozen clock every check below is judged against. */
const NOW_MS = Date.UTC(2030, 0, 1, 12, 0, 0);
const NOW = NOW_MS / 1000;

describe('TokenReader: time claims and delegation claims against a frozen clock', () => {
  let store: Store;
  let keys: KeyRing;
  let reader: TokenReader;

  const sign = async (claims: Record<string, unknown>) => {
    const { kid, privateKey } = await keys.signingKey();
    return new SignJWT({ iss: ISSUER, aud: ISSUER, sub: 'per_ada', oid: 'org_a', iat: NOW, exp: NOW + 600, ...claims })
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt' })
      .sign(privateKey);
  };
  const rejection = async (claims: Record<string, unknown>): Promise<string> => {
    const value = await sign(claims);
    const error = await reader.jwt(value).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof TokenRejected, `accepted: ${JSON.stringify(claims)}`);
    assert.equal(error.name, 'TokenRejected');
    return error.message;
  };
  const accepted = async (claims: Record<string, unknown>) => reader.jwt(await sign(claims));

  before(async () => {
    ({ store } = await openStore('sqlite::memory:'));
    keys = new KeyRing(store, 'reader-test-secret-of-at-least-32-chars', () => NOW_MS);
    await keys.init();
    reader = new TokenReader({ store, keys, issuer: () => ISSUER, now: () => NOW_MS });
  });
  after(() => store.close());

  it('reads a JWT of 8,192 characters and refuses one of 8,193 for its length', async () => {
    /**
     * A token of exactly `length` characters: a padding claim sets the payload's size, and an extra
     * header parameter the header's (base64url never gives a length of 4m+1, so one part alone
     * cannot reach every length).
     */
    const ofLength = async (length: number) => {
      const { kid, privateKey } = await keys.signingKey();
      for (const extra of ['', 'h', 'hh']) {
        for (let pad = 5_800; pad < 6_200; pad += 1) {
          const value = await new SignJWT({ iss: ISSUER, aud: ISSUER, sub: 'per_ada', oid: 'org_a', iat: NOW, exp: NOW + 600, pad: 'p'.repeat(pad) })
            .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt', ...(extra ? { ext: extra } : {}) })
            .sign(privateKey);
          if (value.length === length) return value;
          if (value.length > length) break;
        }
      }
      throw new TypeError(`no token of ${length} characters`);
    };
    assert.equal((await reader.jwt(await ofLength(8_192))).issuedAt, NOW * 1000);
    await assert.rejects(reader.jwt(await ofLength(8_193)), new TokenRejected('is longer than 8192 characters'));
  });

  it('accepts an iat up to 60 seconds ahead and refuses one a second further', async () => {
    assert.equal((await accepted({ iat: NOW + 60 })).issuedAt, (NOW + 60) * 1000);
    assert.equal(await rejection({ iat: NOW + 61 }), 'was issued in the future ("iat" is more than 60 seconds ahead)');
  });

  it('keeps 5 seconds of tolerance for nbf and exp', async () => {
    await accepted({ nbf: NOW + 5 });
    assert.equal(await rejection({ nbf: NOW + 6 }), 'is not valid yet ("nbf" is in the future)');
    await accepted({ iat: NOW - 100, exp: NOW - 4 });
    assert.equal(await rejection({ iat: NOW - 100, exp: NOW - 5 }), 'has expired');
  });

  it('requires aud to be the issuer', async () => {
    assert.match(await rejection({ aud: undefined }), /"aud"/);
    assert.match(await rejection({ aud: `${ISSUER}/` }), /"aud"/);
    await accepted({ aud: [ISSUER, 'https://other.example'] });
  });

  it(`reads an act chain of ${MAX_ACT_DEPTH} actors and refuses ${MAX_ACT_DEPTH + 1}`, async () => {
    const chain = (depth: number) => {
      let act: { sub: string; act?: unknown } | undefined;
      for (let level = depth; level >= 1; level--) act = { sub: `cli_${level}`, ...(act ? { act } : {}) };
      return act;
    };
    assert.deepEqual((await accepted({ act: chain(MAX_ACT_DEPTH) })).act, chain(MAX_ACT_DEPTH));
    assert.equal(await rejection({ act: chain(MAX_ACT_DEPTH + 1) }), `has a malformed claim: "act" nests more than ${MAX_ACT_DEPTH} actors`);
  });

  it('hands out act and may_act as fresh copies, not the verified payload', async () => {
    const token = await accepted({ act: { sub: 'cli_a' }, may_act: { sub: 'cli_a' } });
    assert.notEqual(token.act, token.claims?.act);
    assert.notEqual(token.mayAct, token.claims?.may_act);
    assert.deepEqual([token.act, token.mayAct], [{ sub: 'cli_a' }, { sub: 'cli_a' }]);
  });

  it('reads gen as the generation when it is a whole number of at least 0, and as generation 0 otherwise', async () => {
    for (const [gen, read] of [
      [3, 3],
      [0, 0],
      [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
      [-1, 0],
      [1.5, 0],
      ['2', 0],
      [2 ** 53, 0],
      [undefined, 0],
    ] as const) {
      assert.equal((await accepted({ gen })).personGeneration, read, String(gen));
    }
  });

  it('reads client_id and scope only when they are strings, and no scope as the empty scope', async () => {
    const read = async (claims: Record<string, unknown>) => {
      const token = await accepted(claims);
      return [token.clientId, token.scope];
    };
    assert.deepEqual(await read({ client_id: 'cli_a', scope: 'orders:read' }), ['cli_a', 'orders:read']);
    assert.deepEqual(await read({}), [undefined, '']);
    assert.deepEqual(await read({ client_id: 7, scope: ['orders:read'] }), [undefined, '']);
  });

  it('looks up an opaque value of at most 128 characters, and refuses what it does not find as not a token of this server', async () => {
    const lookedUp: string[] = [];
    const spied = new Proxy(store, {
      get: (target, name) =>
        name === 'findToken'
          ? (hash: string) => {
              lookedUp.push(hash);
              return target.findToken(hash);
            }
          : Reflect.get(target, name),
    });
    const opaqueReader = new TokenReader({ store: spied, keys, issuer: () => ISSUER, now: () => NOW_MS });
    for (const [value, looked] of [
      [`tat_${'a'.repeat(124)}`, 1],
      [`tat_${'a'.repeat(125)}`, 0],
    ] as const) {
      lookedUp.length = 0;
      await assert.rejects(opaqueReader.opaque(value), new TokenRejected('is not a token of this server'));
      assert.equal(lookedUp.length, looked, `${value.length} characters`);
    }
  });

  it('reads amr only as a non-empty list of strings, and auth_time only with it and as a number', async () => {
    const read = async (claims: Record<string, unknown>) => {
      const token = await accepted(claims);
      return [token.amr, token.authTime];
    };
    assert.deepEqual(await read({ amr: ['pwd', 'otp'], auth_time: NOW - 5 }), [['pwd', 'otp'], (NOW - 5) * 1000]);
    for (const amr of [[], ['pwd', 7], [7], 'pwd', undefined]) {
      assert.deepEqual(await read({ amr, auth_time: NOW - 5 }), [undefined, undefined], JSON.stringify(amr));
    }
    assert.deepEqual(await read({ amr: ['pwd'], auth_time: String(NOW - 5) }), [['pwd'], undefined]);
    assert.deepEqual(await read({ amr: ['pwd'] }), [['pwd'], undefined]);
  });

  it("reads an opaque token's may_act and generation from its record, and asks after the lineage of an exchanged one only", async () => {
    const calls: string[] = [];
    const spied = new Proxy(store, {
      get: (target, name) =>
        name === 'isLineageRevoked'
          ? (hash: string) => {
              calls.push(hash);
              return target.isLineageRevoked(hash);
            }
          : Reflect.get(target, name),
    });
    const context = { store: spied, keys, issuer: () => ISSUER, now: () => NOW_MS };
    const issuer = new TokenIssuer(context);
    const opaqueReader = new TokenReader(context);
    const { org } = await createOrganization(store, 'reader-test');
    const base = { orgId: org.id, subject: 'per_ada', scope: 'orders:read', lifetimeSeconds: 600 };
    const root = await issuer.opaque({ ...base, mayAct: { sub: 'cli_a' }, personGeneration: 3 });
    const read = await opaqueReader.opaque(root);
    assert.deepEqual([read.mayAct, read.personGeneration, calls], [{ sub: 'cli_a' }, 3, []]);
    const child = await issuer.opaque({ ...base, act: { sub: 'cli_a' }, parentHash: opaqueTokenKey(root) });
    const again = await opaqueReader.opaque(child);
    assert.deepEqual([again.mayAct, again.personGeneration, calls], [undefined, 0, [opaqueTokenKey(root)]]);
  });

  it('words the refusal of a JWS header parameter it does not accept', async () => {
    const { kid, privateKey } = await keys.signingKey();
    const value = await new SignJWT({ iss: ISSUER, aud: ISSUER, sub: 'per_ada', oid: 'org_a', iat: NOW, exp: NOW + 600 })
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'at+jwt', b64: true })
      .sign(privateKey);
    await assert.rejects(reader.jwt(value), new TokenRejected('uses a JWS header parameter this server does not accept ("crit" or "b64")'));
  });

  it('refuses a sub that is not a string', async () => {
    assert.equal(await rejection({ sub: 12 }), 'has a malformed claim: "sub" must be a string');
  });
});

for (const backend of backends()) {
  describe(`TokenReader on opaque tokens, through introspection and token exchange against a frozen clock, on ${backend.name}`, () => {
    const clock: TestClock = { at: NOW_MS };
    let t: TestService;
    let org: TestOrg;
    let gateway: ClientCredentials;
    let person: string;
    /** Runs once, in the store, just before the next opaque token is inserted: what another request did meanwhile. */
    let beforeInsert: ((store: Store, token: OpaqueToken) => Promise<void>) | undefined;

    before(async () => {
      const wrapStore = (real: Store): Store =>
        new Proxy(real, {
          get(target, name) {
            if (name !== 'insertToken') return Reflect.get(target, name);
            return async (inserted: OpaqueToken) => {
              const step = beforeInsert;
              beforeInsert = undefined;
              await step?.(real, inserted);
              return target.insertToken(inserted);
            };
          },
        });
      t = await startFrozenService(backend, clock, { wrapStore });
      org = await t.org();
      gateway = await registerClient(t, org);
      person = await createPerson(t, org);
    });
    after(() => t.close());

    /** A person JWT minted at the clock's time: a subject with its whole lifetime ahead. */
    const personJwt = () => mintPersonToken(t, org, person, { scope: 'orders:read' });
    const exchange = (params: Record<string, string>, client?: ClientCredentials): Promise<OAuthResponse> =>
      token(t, { grant_type: EXCHANGE, ...params }, client);
    /** `value` as actor_token for a fresh person JWT, clientless: only the actor token can refuse it. */
    const asActor = async (value: string) =>
      exchange({ subject_token: await personJwt(), subject_token_type: JWT_TYPE, actor_token: value, actor_token_type: ACCESS_TOKEN_TYPE });
    const refusal = (response: OAuthResponse) => [response.status, response.body.error, response.body.error_description];
    const stored = (value: string) => t.service.store.findToken(opaqueTokenKey(value));

    it('refuses an expired opaque token for its expiry: inactive at introspection, "has expired" as actor_token and as subject_token', async () => {
      clock.at = NOW_MS;
      const issued = await token(t, { grant_type: 'client_credentials' }, gateway);
      assert.equal(issued.status, 200, JSON.stringify(issued.body));
      const actor: string = issued.body.access_token;
      const actorExpiresAt = (await stored(actor))!.expiresAt;
      const delegated = await exchange({ subject_token: await personJwt(), subject_token_type: JWT_TYPE }, gateway);
      assert.equal(delegated.status, 200, JSON.stringify(delegated.body));
      const subject: string = delegated.body.access_token;
      const subjectExpiresAt = (await stored(subject))!.expiresAt;

      // A millisecond before its expiry each still works, so what refuses them below is the time.
      clock.at = actorExpiresAt - 1;
      assert.equal((await introspect(t, actor, gateway)).body.active, true);
      assert.equal((await asActor(actor)).status, 200);
      clock.at = subjectExpiresAt - 1;
      assert.equal((await introspect(t, subject, gateway)).body.active, true);

      clock.at = actorExpiresAt;
      assert.deepEqual((await introspect(t, actor, gateway)).body, { active: false });
      assert.deepEqual(refusal(await asActor(actor)), [400, 'invalid_request', 'actor_token has expired']);
      clock.at = subjectExpiresAt;
      assert.deepEqual((await introspect(t, subject, gateway)).body, { active: false });
      // An expired subject also has no lifetime left to delegate, and the exchange's last step
      // refuses that with the same words: the scope asked for here is beyond the subject's, so an
      // exchange that read the subject as current would answer invalid_scope before that step.
      const asSubject = await exchange({ subject_token: subject, subject_token_type: ACCESS_TOKEN_TYPE, scope: 'orders:write' }, gateway);
      assert.deepEqual(refusal(asSubject), [400, 'invalid_request', 'subject_token has expired']);
    });

    it('refuses a token exchanged from one revoked meanwhile: inactive at introspection, refused as subject_token and as actor_token', async () => {
      clock.at = NOW_MS;
      const root = (await exchange({ subject_token: await personJwt(), subject_token_type: JWT_TYPE }, gateway)).body.access_token as string;
      // The root is revoked between the exchange's read of it and the insert of the token exchanged
      // from it: the revocation's walk of the tree did not see the child, which is stored unrevoked.
      beforeInsert = async (store, child) => {
        assert.equal(child.parentHash, opaqueTokenKey(root));
        await store.revokeTokenTree(child.parentHash!, clock.at);
      };
      const exchanged = await exchange({ subject_token: root, subject_token_type: ACCESS_TOKEN_TYPE }, gateway);
      assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
      const child: string = exchanged.body.access_token;
      assert.equal(beforeInsert, undefined, 'the root was revoked meanwhile');
      assert.equal((await stored(child))!.revokedAt, null, 'the child itself is not marked revoked: only its lineage refuses it');
      assert.notEqual((await stored(root))!.revokedAt, null);

      assert.deepEqual((await introspect(t, child, gateway)).body, { active: false });
      const asSubject = await exchange({ subject_token: child, subject_token_type: ACCESS_TOKEN_TYPE }, gateway);
      assert.deepEqual(refusal(asSubject), [400, 'invalid_request', 'subject_token was exchanged from a token that has been revoked']);
      assert.deepEqual(refusal(await asActor(child)), [400, 'invalid_request', 'actor_token was exchanged from a token that has been revoked']);
    });
  });
}
