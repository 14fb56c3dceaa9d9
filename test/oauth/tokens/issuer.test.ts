import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KeyRing } from '../../../src/oauth/keys/key-ring.ts';
import { type IssueRequest, TokenIssuer } from '../../../src/oauth/tokens/issuer.ts';
import { TokenReader } from '../../../src/oauth/tokens/reader.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { Store } from '../../../src/store/store.ts';
import { claims } from '../../helpers/oauth.ts';

const ISSUER = 'https://tessera.test';
const NOW_MS = Date.UTC(2030, 0, 1, 12, 0, 0, 750);
const NOW = Math.floor(NOW_MS / 1000);
/** A ULID without its type prefix: 26 characters of Crockford base32. */
const JTI = /^[0-9a-hjkmnp-tv-z]{26}$/;

describe('TokenIssuer: the claims of a JWT access token (RFC 9068 §2.2)', () => {
  let store: Store;
  let issuer: TokenIssuer;
  let reader: TokenReader;

  before(async () => {
    ({ store } = await openStore('sqlite::memory:'));
    const keys = new KeyRing(store, 'issuer-test-secret-of-at-least-32-chars', () => NOW_MS);
    await keys.init();
    const context = { store, keys, issuer: () => ISSUER, now: () => NOW_MS };
    issuer = new TokenIssuer(context);
    reader = new TokenReader(context);
  });
  after(() => store.close());

  const issued = async (request: Omit<IssueRequest, 'orgId' | 'lifetimeSeconds'>) => {
    const jwt = await issuer.jwt({ orgId: 'org_a', lifetimeSeconds: 600, ...request });
    await reader.jwt(jwt);
    const { jti, ...rest } = claims(jwt);
    assert.match(jti, JTI);
    return rest;
  };
  const registered = { iss: ISSUER, aud: ISSUER, iat: NOW, exp: NOW + 600, oid: 'org_a' };

  it('carries only the registered claims and oid when nothing else applies: no empty scope, no generation 0', async () => {
    assert.deepEqual(await issued({ subject: 'cli_a', scope: '' }), { ...registered, sub: 'cli_a' });
    assert.deepEqual(await issued({ subject: 'per_a', scope: '', personGeneration: 0 }), { ...registered, sub: 'per_a' });
  });

  it('carries each claim that applies, auth_time in whole seconds', async () => {
    const request = {
      subject: 'per_a',
      clientId: 'cli_a',
      scope: 'orders:read',
      act: { sub: 'cli_b', act: { sub: 'cli_c' } },
      mayAct: { sub: 'cli_b' },
      amr: ['pwd', 'otp'],
      authTime: NOW_MS - 61_999,
      personGeneration: 3,
    };
    assert.deepEqual(await issued(request), {
      ...registered,
      sub: 'per_a',
      client_id: 'cli_a',
      scope: 'orders:read',
      act: { sub: 'cli_b', act: { sub: 'cli_c' } },
      may_act: { sub: 'cli_b' },
      amr: ['pwd', 'otp'],
      auth_time: NOW - 62,
      gen: 3,
    });
  });

  it('gives every token a jti of its own', async () => {
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) ids.add(claims(await issuer.jwt({ orgId: 'org_a', subject: 'cli_a', scope: '', lifetimeSeconds: 60 })).jti);
    assert.equal(ids.size, 20);
  });
});
