import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from 'jose';
import { backends } from '../helpers/backends.ts';
import { type ClientKey, clientKey, signAssertion } from '../helpers/client-jwks-server.ts';
import { clientCredentialsOutcomes, oauthPost, registerClient } from '../helpers/oauth.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

interface Key {
  alg: string;
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function keyOf(alg: 'ES256' | 'EdDSA' | 'RS256' | 'PS256', kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  return { alg, kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid } };
}

/**
 * private_key_jwt (RFC 7523 §2.2, design §4), with assertions signed by jose directly, as a client
 * library would sign them: registration with inline jwks, acceptance for each algorithm, and each
 * refusal the design names.
 */
for (const backend of backends()) {
  describe(`private_key_jwt client authentication on ${backend.name} (issue 29)`, () => {
    let t: TestService;
    let org: TestOrg;
    let keys: Key[];
    let clientId: string;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      keys = await Promise.all([keyOf('ES256', 'es'), keyOf('EdDSA', 'ed'), keyOf('RS256', 'rs'), keyOf('PS256', 'ps')]);
      const registered = await t.call('POST', '/oauth2/clients', {
        as: org,
        body: {
          client_name: 'keyed',
          grant_types: ['client_credentials'],
          scopes: ['orders:read'],
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: keys.map((k) => k.jwk) },
        },
      });
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      clientId = registered.body.result.client_id;
      assert.equal(registered.body.result.client_secret, undefined, 'a keyed client is given no secret');
      assert.equal(registered.body.result.token_endpoint_auth_method, 'private_key_jwt');
      assert.deepEqual(
        registered.body.result.jwks.keys.map((k: JWK) => k.kid),
        keys.map((k) => k.kid),
      );
    });
    after(() => t.close());

    /** An assertion as RFC 7523 §3 describes it, two minutes long, each claim overridable (undefined: left out). */
    function assertion(key: Key, claims: Partial<Record<keyof JWTPayload, unknown>> = {}, header: Record<string, unknown> = {}): Promise<string> {
      const base: Record<string, unknown> = {
        iss: clientId,
        sub: clientId,
        aud: t.service.issuer,
        jti: randomUUID(),
        iat: Math.floor(Date.now() / 1000),
        exp: Math.floor(Date.now() / 1000) + 120,
        ...claims,
      };
      const payload = Object.fromEntries(Object.entries(base).filter(([, value]) => value !== undefined));
      return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);
    }

    const tokenWith = (clientAssertion: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}) =>
      oauthPost(
        t,
        '/oauth2/tokens',
        { grant_type: 'client_credentials', client_assertion_type: ASSERTION_TYPE, client_assertion: clientAssertion, ...extra },
        undefined,
        headers,
      );

    async function refusedWith(clientAssertion: string, description: RegExp, extra: Record<string, string> = {}): Promise<void> {
      const answer = await tokenWith(clientAssertion, extra);
      assert.equal(answer.status, 401, JSON.stringify(answer.body));
      assert.equal(answer.body.error, 'invalid_client');
      assert.match(answer.body.error_description, description);
    }

    it('issues a token for an assertion signed with each registered key: ES256, EdDSA, RS256, PS256', async () => {
      for (const key of keys) {
        const answer = await tokenWith(await assertion(key));
        assert.equal(answer.status, 200, `${key.alg}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.token_type, 'Bearer');
        assert.equal(answer.body.scope, 'orders:read');
      }
    });

    it('refuses the same assertion a second time (its jti is spent), and takes a new one', async () => {
      const once = await assertion(keys[0]!);
      assert.equal((await tokenWith(once)).status, 200);
      await refusedWith(once, /used already/);
      assert.equal((await tokenWith(await assertion(keys[0]!))).status, 200);
    });

    it('refuses a signature of another key under a registered kid, an unknown kid, and an alg the key does not make', async () => {
      const stranger = await keyOf('ES256', 'es');
      await refusedWith(await assertion(stranger), /signature does not verify/);
      await refusedWith(await assertion({ ...keys[0]!, kid: 'nobody' }), /name no key/);
      const hs = await new SignJWT({ iss: clientId, sub: clientId, aud: t.service.issuer, jti: randomUUID(), exp: Math.floor(Date.now() / 1000) + 60 })
        .setProtectedHeader({ alg: 'HS256', kid: 'es' })
        .sign(new TextEncoder().encode('a shared secret of thirty-two bytes!'));
      await refusedWith(hs, /alg must be one of ES256, EdDSA, RS256, PS256/);
    });

    it('takes a lone key registered without kid whatever kid the assertion names, and asks for a kid when two keys fit', async () => {
      const register = async (jwks: JWK[]) => {
        const response = await t.call('POST', '/oauth2/clients', {
          as: org,
          body: { client_name: 'k', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: jwks } },
        });
        assert.equal(response.status, 201, JSON.stringify(response.body));
        return response.body.result.client_id as string;
      };
      const post = async (id: string, key: ClientKey) => tokenWith(await signAssertion(key, id, t.service.issuer, Date.now()));
      const lone = await clientKey('named-by-the-signer');
      const { kid: _dropped, ...withoutKid } = lone.jwk;
      assert.equal((await post(await register([withoutKid]), lone)).status, 200);
      const [a, b] = [await clientKey('a'), await clientKey('b')];
      const twoOfAKind = await register([a.jwk, b.jwk]);
      assert.equal((await post(twoOfAKind, b)).status, 200);
      const unnamed = await post(twoOfAKind, { ...b, kid: undefined as unknown as string });
      assert.equal(unnamed.status, 401);
      assert.equal(unnamed.body.error_description, "client_assertion names no kid, and more than one of the client's keys fits its alg: name the key by kid");
    });

    it('refuses a wrong iss, a sub naming another client, and a client_id that differs from sub', async () => {
      await refusedWith(await assertion(keys[0]!, { iss: 'someone-else' }), /iss claim is not accepted/);
      const other = await registerClient(t, org);
      await refusedWith(await assertion(keys[0]!, { sub: other.id, iss: other.id }), /registered for client_secret_basic, not private_key_jwt/);
      await refusedWith(await assertion(keys[0]!), /client_id differs/, { client_id: other.id });
    });

    it("refuses an aud of the token endpoint's URL, another issuer, or an array, as draft-ietf-oauth-rfc7523bis requires", async () => {
      await refusedWith(await assertion(keys[0]!, { aud: `${t.service.issuer}/oauth2/tokens` }), /aud claim is not accepted/);
      await refusedWith(await assertion(keys[0]!, { aud: 'https://elsewhere.example' }), /aud claim is not accepted/);
      await refusedWith(await assertion(keys[0]!, { aud: [t.service.issuer] }), /aud must be the issuer identifier alone, as a string/);
    });

    it('refuses an expired assertion, one that lives longer than five minutes, and one without exp or jti', async () => {
      const now = Math.floor(Date.now() / 1000);
      await refusedWith(await assertion(keys[0]!, { iat: now - 600, exp: now - 120 }), /has expired/);
      await refusedWith(await assertion(keys[0]!, { exp: now + 600 }), /at most 5 minutes ahead/);
      await refusedWith(await assertion(keys[0]!, { exp: undefined }), /exp claim is missing/);
      await refusedWith(await assertion(keys[0]!, { jti: undefined }), /jti claim is missing/);
    });

    it('regression: an assertion past its exp but within the 60 s of skew was accepted again and again; its jti is spent until the skew ends', async () => {
      const now = Math.floor(Date.now() / 1000);
      const late = await assertion(keys[0]!, { iat: now - 90, exp: now - 30 });
      assert.equal((await tokenWith(late)).status, 200, 'within the skew, once');
      await refusedWith(late, /used already/);
      // A fractional NumericDate is legal (RFC 7519 §2), and must not fail the jti's store (PostgreSQL's BIGINT).
      assert.equal((await tokenWith(await assertion(keys[0]!, { exp: now + 60.25 }))).status, 200);
    });

    it('refuses an exp between five and six minutes ahead, an iat in the future, and a typ of another kind of token', async () => {
      const now = Math.floor(Date.now() / 1000);
      await refusedWith(await assertion(keys[0]!, { exp: now + 330 }), /at most 5 minutes ahead/);
      await refusedWith(await assertion(keys[0]!, { iat: now + 300 }), /iat must not be in the future/);
      await refusedWith(await assertion(keys[0]!, {}, { typ: 'at+jwt' }), /typ must be JWT or client-authentication\+jwt/);
      assert.equal((await tokenWith(await assertion(keys[0]!, {}, { typ: 'client-authentication+jwt' }))).status, 200);
    });

    it('refuses a secret tried on the keyed client, naming its method, and an assertion beside HTTP Basic', async () => {
      const secret = await oauthPost(t, '/oauth2/tokens', { grant_type: 'client_credentials' }, { id: clientId, secret: 'tcs_guess' });
      assert.equal(secret.status, 401);
      assert.match(secret.body.error_description, /registered for private_key_jwt; it has no secret/);
      const both = await tokenWith(await assertion(keys[0]!), {}, { authorization: `Basic ${Buffer.from(`${clientId}:x`).toString('base64')}` });
      assert.equal(both.status, 400);
      assert.equal(both.body.error, 'invalid_request');
    });

    it('audits a refused assertion in the client organisation, as a refused secret is', async () => {
      // A client of its own: the tests above spent this minute's audited refusals of the first one.
      const own = await t.call('POST', '/oauth2/clients', {
        as: org,
        body: { client_name: 'audited', grant_types: ['client_credentials'], token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [keys[0]!.jwk] } },
      });
      const id = own.body.result.client_id;
      await refusedWith(await assertion(keys[0]!, { iss: id, sub: id, aud: 'https://elsewhere.example' }), /aud/);
      assert.deepEqual(await clientCredentialsOutcomes(t, org, id), [['refused', 'invalid_client']]);
    });

    it('lists private_key_jwt and its algorithms in the RFC 8414 metadata', async () => {
      const metadata = (await (await fetch(`${t.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
      assert.deepEqual(metadata.token_endpoint_auth_methods_supported, ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'spiffe_jwt']);
      assert.deepEqual(metadata.token_endpoint_auth_signing_alg_values_supported, ['ES256', 'EdDSA', 'RS256', 'PS256']);
    });
  });

  describe(`registering a private_key_jwt client on ${backend.name}: bad keys are named (issue 29)`, () => {
    let t: TestService;
    let org: TestOrg;
    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
    });
    after(() => t.close());

    const register = (body: Record<string, unknown>) =>
      t.call('POST', '/oauth2/clients', { as: org, body: { client_name: 'keyed', grant_types: ['client_credentials'], ...body } });

    it('refuses a private key, a weak RSA key, a symmetric key, keys without distinct kids, and jwks beside a secret method', async () => {
      const es = await keyOf('ES256', 'a');
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      // jose will not make a key this weak; node:crypto will, as an old client's tooling did.
      const weak = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
      const big = generateKeyPairSync('rsa', { modulusLength: 4160 }).publicKey.export({ format: 'jwk' });
      const normal = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
      const rsa = (key: Record<string, unknown>, changed: Record<string, unknown>) => ({ ...key, kid: 'r', ...changed });
      const cases: [Record<string, unknown>, RegExp][] = [
        [{ jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'a' }] } }, /body\.jwks\.keys\[0\]\.d: must not be given/],
        [{ jwks: { keys: [weak] } }, /body\.jwks\.keys\[0\]\.n: must be a modulus of 2048 to 4096 bits/],
        [{ jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }, /body\.jwks\.keys\[0\]\.kty: must be an EC key on P-256/],
        [{ jwks: { keys: [es.jwk, { ...es.jwk }] } }, /body\.jwks\.keys\[1\]\.kid: must differ/],
        [{ jwks: { keys: [es.jwk, { ...(await keyOf('ES256', 'b')).jwk, kid: undefined }] } }, /body\.jwks\.keys\[1\]\.kid: is required/],
        [{ jwks: { keys: [{ ...es.jwk, alg: 'RS256' }] } }, /body\.jwks\.keys\[0\]\.alg: must be one of ES256/],
        [{ jwks: { keys: [{ ...es.jwk, x: 'AAAA' }] } }, /body\.jwks\.keys\[0\]: is not a usable public key/],
        [
          { token_endpoint_auth_method: 'client_secret_basic', jwks: { keys: [es.jwk] } },
          /body\.jwks: is not used with token_endpoint_auth_method client_secret_basic/,
        ],
        [{}, /body\.jwks: is required with token_endpoint_auth_method private_key_jwt/],
        [{ jwks: { keys: [rsa(big, {})] } }, /body\.jwks\.keys\[0\]\.n: must be a modulus of 2048 to 4096 bits/],
        [{ jwks: { keys: [rsa(normal, { e: 'AQAAAAE' })] } }, /body\.jwks\.keys\[0\]\.e: must be an odd exponent of at most 32 bits/],
        [
          { jwks: { keys: [rsa(normal, { n: `AAAA${String(normal.n)}` })] } },
          /body\.jwks\.keys\[0\]\.n: must be a modulus of 2048 to 4096 bits, without leading zero/,
        ],
        [{ jwks: { keys: [{ ...es.jwk, n: 5 }] } }, /body\.jwks\.keys\/0\/n|body\.jwks\.keys\[0\]\.n/],
        [{ jwks: { keys: [{ ...(await keyOf('EdDSA', 'e')).jwk, alg: 'Ed25519' }] } }, /body\.jwks\.keys\[0\]\.alg: must be one of EdDSA/],
      ];
      for (const [body, rule] of cases) {
        const answer = await register({ token_endpoint_auth_method: 'private_key_jwt', ...body });
        assert.equal(answer.status, 400, `${rule}: ${JSON.stringify(answer.body)}`);
        assert.match(answer.body.errors[0].message, rule);
      }
      const listed = (await t.call('GET', '/oauth2/clients', { as: org })).body.result;
      assert.equal(listed.length, 0, 'nothing was registered');
    });

    it("refuses to rotate a keyed client's secret (it has none), and a secret client is listed with its method", async () => {
      const keyed = await register({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [(await keyOf('ES256', 'a')).jwk] } });
      const rotate = await t.call('POST', `/oauth2/clients/${keyed.body.result.client_id}/secret`, { as: org });
      assert.equal(rotate.status, 409);
      assert.match(rotate.body.errors[0].message, /authenticates with private_key_jwt and has no secret to rotate/);
      const secret = await register({});
      assert.equal(secret.body.result.token_endpoint_auth_method, 'client_secret_basic');
      assert.match(secret.body.result.client_secret, /^tcs_/);
    });
  });
}
