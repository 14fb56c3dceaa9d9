import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { KeyRing } from '../../../src/oauth/keys/key-ring.ts';
import { TokenReader, TokenRejected } from '../../../src/oauth/tokens/reader.ts';
import { backends } from '../../helpers/backends.ts';
import { type JwksServer, startJwksServer } from '../../helpers/jwks-server.ts';
import { type ClientCredentials, claims, createPerson, EXCHANGE, JWT_TYPE, mintPersonToken, registerClient, serviceSigningKey } from '../../helpers/oauth.ts';
import { TEST_SECRET, type TestOrg } from '../../helpers/service.ts';
import { assertOAuthRefusal, changes, type FuzzService, rawCall, runs, startFuzzService } from './fuzz-service.ts';
import { actClaims, applyChanges, type Change, headerChanges, isDamaged, numericDates, signCompact, structuralDamage } from './jws-arbitraries.ts';

const SPIFFE_ID = 'spiffe://example.org/gateway';
type Json = Record<string, any>;

/** The changes one time in `every`, else none. */
const sometimes = (changes: fc.Arbitrary<Change[]>, every: number) =>
  fc.oneof({ weight: Math.round((every - 1) * 10), arbitrary: fc.constant([]) }, { weight: 10, arbitrary: changes });

/** A token as forged: what it says, and the compact form sent (damaged or not). */
interface Forged {
  header: Json;
  claims: Json;
  token: string;
  damaged: boolean;
}

/** The rules of docs/token-exchange.md for this server's JWT access tokens: anything accepted must keep them all. */
function acceptableOwnJwt({ header, claims: c }: Forged, issuer: string, kid: string, now: number): boolean {
  const typ = typeof header.typ === 'string' && header.typ.toLowerCase().replace(/^application\//, '') === 'at+jwt';
  const date = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  const audience = c.aud === issuer || (Array.isArray(c.aud) && c.aud.includes(issuer));
  return (
    header.alg === 'ES256' &&
    header.kid === kid &&
    !('crit' in header) &&
    !('b64' in header) &&
    typ &&
    c.iss === issuer &&
    audience &&
    date(c.exp) &&
    c.exp > now - 5 &&
    date(c.iat) &&
    c.iat <= now + 60 &&
    (c.nbf === undefined || (date(c.nbf) && c.nbf <= now + 5)) &&
    typeof c.oid === 'string' &&
    typeof c.sub === 'string'
  );
}

/** JWT-SVID §2 and §3 as the verifier applies them. */
function acceptableSvid({ header, claims: c }: Forged, audience: string, now: number): boolean {
  const date = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
  return (
    header.alg === 'ES256' &&
    header.kid === 'svid-key-1' &&
    [undefined, 'JWT', 'JOSE'].includes(header.typ) &&
    Object.keys(header).every((name) => ['alg', 'kid', 'typ'].includes(name)) &&
    c.sub === SPIFFE_ID &&
    (c.aud === audience || (Array.isArray(c.aud) && c.aud.includes(audience))) &&
    date(c.exp) &&
    c.exp > now - 30 &&
    (c.iat === undefined || (date(c.iat) && c.iat <= now + 30)) &&
    (c.nbf === undefined || (date(c.nbf) && c.nbf <= now + 30))
  );
}

/**
 * Acceptances of one property: a property that holds when everything is refused proves
 * nothing about what is accepted, so each counts what it accepted and requires at least
 * `least` (each also runs an untouched token first, as a fast-check example, so at least one
 * must be taken).
 */
interface Tally {
  runs: number;
  accepted: number;
}
const tally = (): Tally => ({ runs: 0, accepted: 0 });
function assertAccepted({ runs, accepted }: Tally, what: string, least = 1): void {
  assert.ok(runs > 0, `no ${what} were tried`);
  assert.ok(
    accepted >= least,
    `${accepted} of ${runs} ${what} were accepted, fewer than ${least}: the server refuses what it should take, or the generator lost its way`,
  );
}
/** A token as issued: signed, nothing changed. */
const untouched = (key: KeyObject, header: Json, payload: Json): Forged => ({
  header,
  claims: payload,
  token: signCompact(key, header, payload),
  damaged: false,
});

describe('Damage to a compact JWS, as the properties judge it', () => {
  it('regression: a last character changed only in its unused bits is the same token, not a damaged one', () => {
    // 64 signature bytes are 86 characters; the last carries 2 bits, so A (000000) and B (000001) decode alike.
    const token = `eyJhIjoxfQ.eyJiIjoyfQ.${Buffer.alloc(64).toString('base64url')}`;
    assert.ok(token.endsWith('A'));
    assert.equal(isDamaged(`${token.slice(0, -1)}B`, token), false);
    assert.equal(isDamaged(`${token.slice(0, -1)}Q`, token), true, 'Q sets a used bit');
    assert.equal(isDamaged(`${token}=`, token), true);
  });
});

for (const backend of backends()) {
  describe(`JWT subject and actor tokens, fuzzed, on ${backend.name}`, () => {
    let t: FuzzService;
    let org: TestOrg;
    let gateway: ClientCredentials;
    let jwks: JwksServer;
    let own: { kid: string; privateKey: KeyObject };
    let personJwt: string;
    const ids: Record<string, string> = {};
    const svidKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });

    before(async () => {
      jwks = await startJwksServer(
        JSON.stringify({ keys: [{ ...svidKey.publicKey.export({ format: 'jwk' }), kid: 'svid-key-1', use: 'jwt-svid', alg: 'ES256' }] }),
      );
      t = await startFuzzService(backend, { TESSERA_DEV: '1' });
      org = await t.org();
      const trust = { svid_jwks_urls: { 'example.org': jwks.url }, allowed_spiffe_ids: [SPIFFE_ID] };
      assert.equal((await t.call('PATCH', '/organizations/config', { as: org, body: trust })).status, 200);
      gateway = await registerClient(t, org);
      ids.person = await createPerson(t, org);
      ids.actor = await createPerson(t, org);
      ids.client = gateway.id;
      ids.otherOrg = (await t.org()).orgId;
      personJwt = await mintPersonToken(t, org, ids.person);
      own = await serviceSigningKey(t);
    });
    after(async () => {
      await t?.close();
      await jwks?.close();
    });

    const now = () => Math.floor(Date.now() / 1000);
    /** Claims changes a forger tries: each registered claim removed or set to something else. */
    const claimChanges = (subjects: string[]): fc.Arbitrary<Change[]> => {
      const change: fc.Arbitrary<Change> = fc.oneof(
        fc.record({ name: fc.constantFrom('iss', 'aud', 'sub', 'oid', 'iat', 'exp'), remove: fc.constant(true as const) }),
        fc.record({ name: fc.constantFrom('iat', 'exp', 'nbf'), value: numericDates(now()) }),
        fc.record({
          name: fc.constantFrom('iss', 'aud'),
          value: fc.constantFrom(
            t.service.issuer,
            `${t.service.issuer}/`,
            [t.service.issuer, 'x'],
            [],
            'https://evil.example',
            `${t.service.issuer}/oauth2/tokens`,
          ),
        }),
        fc.record({
          name: fc.constantFrom('sub', 'oid'),
          value: fc.oneof(fc.constantFrom(...subjects, org.orgId, ids.otherOrg!, 'per_unknown', SPIFFE_ID), fc.jsonValue({ maxDepth: 1 })),
        }),
        fc.record({ name: fc.constantFrom('act', 'may_act'), value: actClaims }),
        fc.record({ name: fc.constantFrom('scope', 'client_id', 'jti', 'x'), value: fc.jsonValue({ maxDepth: 2 }) }),
      );
      return fc.array(change, { minLength: 1, maxLength: 3 });
    };
    /** A token signed with `key` after changes to a valid one, maybe damaged on top. */
    const forged = (key: KeyObject, header: Json, base: () => Json, subjects: string[], typs: string[]): fc.Arbitrary<Forged> =>
      // Mostly the claims: a header or encoding fault ends the checks before any claim is read.
      fc
        .tuple(
          sometimes(headerChanges(header.kid, typs), 3),
          sometimes(claimChanges(subjects), 1.2),
          fc.nat({ max: 3 }).map((n) => n === 0),
        )
        .chain(([headerChange, claimChange, damage]) => {
          const h = applyChanges(header, headerChange);
          const c = applyChanges(base(), claimChange);
          const token = signCompact(key, h, c);
          return (damage ? structuralDamage(token) : fc.constant(token)).map((sent) => ({
            header: h,
            claims: c,
            token: sent,
            damaged: isDamaged(sent, token),
          }));
        });
    const ownHeader = () => ({ alg: 'ES256', kid: own.kid, typ: 'at+jwt' });
    const ownClaims = (sub: string) => ({ iss: t.service.issuer, aud: t.service.issuer, sub: ids[sub], oid: org.orgId, iat: now(), exp: now() + 600 });
    const ownToken = (sub: string) => forged(own.privateKey, ownHeader(), () => ownClaims(sub), [ids.person!, ids.actor!, ids.client!], ['at+jwt']);
    const untouchedOwn = (sub: string) => untouched(own.privateKey, ownHeader(), ownClaims(sub));

    /** One exchange; a refusal is a catalogued OAuth error (of `allowed`) that writes nothing but its audit event. */
    const exchange = async (params: Record<string, string>, client: ClientCredentials | undefined, allowed: string[], context: string) => {
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (client) headers.authorization = `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`;
      const before = await t.snapshot();
      const body = new URLSearchParams({ grant_type: EXCHANGE, requested_token_type: JWT_TYPE, ...params }).toString();
      const response = await rawCall(t, 'POST', '/oauth2/tokens', headers, body);
      if (response.status === 200) return response.body.access_token as string;
      assert.ok(allowed.includes(assertOAuthRefusal(response, context)), `${context} → ${JSON.stringify(response.body)}`);
      const { audit_events: _, ...rest } = changes(before, await t.snapshot());
      assert.deepEqual(rest, {}, context);
      return undefined;
    };

    it('the token reader refuses every forged or damaged token it should with TokenRejected, and nothing else', async () => {
      const reader = new TokenReader({
        store: t.service.store,
        keys: new KeyRing(t.service.store, TEST_SECRET),
        issuer: () => t.service.issuer,
        now: Date.now,
      });
      const read = tally();
      await fc.assert(
        fc.asyncProperty(ownToken('person'), async (f) => {
          read.runs++;
          const token = await reader.jwt(f.token).catch((error: unknown) => {
            assert.ok(error instanceof TokenRejected, `${f.token} threw ${String(error)}`);
            return undefined;
          });
          if (!token) return;
          read.accepted++;
          assert.ok(!f.damaged && acceptableOwnJwt(f, t.service.issuer, own.kid, now()), `accepted: ${JSON.stringify(f)}`);
        }),
        { numRuns: 2_000, examples: [[untouchedOwn('person')]] },
      );
      // About one generated token in five is acceptable (one in twelve is left untouched, and
      // many changes keep a token acceptable): a twentieth of 2,000 runs is far below that.
      assertAccepted(read, 'tokens read', read.runs / 20);
    });

    it('refuses a forged or damaged subject_token as invalid_request (or invalid_client), and what it accepts is what the token says', async () => {
      const exchanged = tally();
      await fc.assert(
        fc.asyncProperty(ownToken('person'), async (f) => {
          exchanged.runs++;
          const context = `subject ${JSON.stringify({ header: f.header, claims: f.claims })} ${f.token.slice(0, 200)}`;
          const issued = await exchange({ subject_token: f.token, subject_token_type: JWT_TYPE }, gateway, ['invalid_request', 'invalid_client'], context);
          if (issued === undefined) return;
          exchanged.accepted++;
          assert.ok(!f.damaged && acceptableOwnJwt(f, t.service.issuer, own.kid, now()), `accepted: ${context}`);
          assert.equal(claims(issued).sub, f.claims.sub, context);
          assert.equal(claims(issued).oid, f.claims.oid, context);
        }),
        { numRuns: runs(backend, 200), examples: [[untouchedOwn('person')]] },
      );
      assertAccepted(exchanged, 'subject tokens');
    });

    it('refuses a forged or damaged actor_token (own JWT or JWT-SVID) as invalid_request; an accepted actor is the one it names', async () => {
      const audience = `${t.service.issuer}/oauth2/tokens`;
      const svidHeader = { alg: 'ES256', kid: 'svid-key-1', typ: 'JWT' };
      const svidClaims = () => ({ sub: SPIFFE_ID, aud: [audience], iat: now(), exp: now() + 300 });
      const svid = forged(
        svidKey.privateKey,
        svidHeader,
        svidClaims,
        ['spiffe://example.org/other', 'spiffe://unknown.example/gateway', 'spiffe://example.org', 'https://example.org/gateway'],
        ['JWT', 'JOSE'],
      ).map((f) => ({ ...f, kind: 'svid' as const }));
      const actor = fc.oneof(
        svid,
        ownToken('actor').map((f) => ({ ...f, kind: 'own' as const })),
      );
      const accepted = { svid: tally(), own: tally() };
      await fc.assert(
        fc.asyncProperty(actor, async (f) => {
          accepted[f.kind].runs++;
          const context = `actor ${f.kind} ${JSON.stringify({ header: f.header, claims: f.claims })} ${f.token.slice(0, 200)}`;
          const params = { subject_token: personJwt, subject_token_type: JWT_TYPE, actor_token: f.token, actor_token_type: JWT_TYPE };
          const issued = await exchange(params, undefined, ['invalid_request'], context);
          if (issued === undefined) return;
          accepted[f.kind].accepted++;
          const ok = f.kind === 'svid' ? acceptableSvid(f, audience, now()) : acceptableOwnJwt(f, t.service.issuer, own.kid, now());
          assert.ok(!f.damaged && ok, `accepted: ${context}`);
          assert.equal(claims(issued).act.sub, f.claims.sub, context);
        }),
        {
          numRuns: runs(backend, 200),
          examples: [[{ ...untouched(svidKey.privateKey, svidHeader, svidClaims()), kind: 'svid' }], [{ ...untouchedOwn('actor'), kind: 'own' }]],
        },
      );
      assertAccepted(accepted.svid, 'JWT-SVID actor tokens');
      assertAccepted(accepted.own, 'own JWT actor tokens');
    });
  });
}
