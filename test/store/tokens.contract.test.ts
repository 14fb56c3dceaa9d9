import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import type { TokenStore } from '../../src/store/tokens/store.ts';
import { contractOnEveryBackend, storedOrg, token } from './contract-harness.ts';

contractOnEveryBackend<TokenStore & OrganizationStore>('Opaque token store', (t) => {
  it('stores opaque tokens by hash and revokes a token with everything exchanged from it', async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const root = token(orgId);
    const child = token(orgId, root.hash);
    const grandchild = token(orgId, child.hash);
    const sibling = token(orgId);
    for (const x of [root, child, grandchild, sibling]) await store.insertToken(x);
    assert.deepEqual(await store.findToken(grandchild.hash), grandchild);
    assert.equal(await store.revokeTokenTree(child.hash, 7_000), 2, 'the child and its descendant');
    assert.equal((await store.findToken(root.hash))?.revokedAt, null, 'the parent stays');
    assert.equal((await store.findToken(grandchild.hash))?.revokedAt, 7_000);
    assert.equal(await store.revokeTokenTree(root.hash, 8_000), 1, 'already revoked ones keep their time');
    assert.equal((await store.findToken(child.hash))?.revokedAt, 7_000);
    assert.equal((await store.findToken(sibling.hash))?.revokedAt, null);
    assert.equal(await store.findToken('nope'), undefined);
  });

  it("keeps the subject person's generation a token was issued at, and none for a token of no person", async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const ofPerson = { ...token(orgId), personGeneration: 3 };
    const ofNobody = token(orgId);
    for (const x of [ofPerson, ofNobody]) await store.insertToken(x);
    assert.deepEqual(await store.findToken(ofPerson.hash), ofPerson);
    assert.equal((await store.findToken(ofNobody.hash))?.personGeneration, null);
  });

  it('finds a revoked token anywhere up a lineage', async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    const root = token(orgId);
    const child = token(orgId, root.hash);
    const grandchild = { ...token(orgId, child.hash), subject: 'per_other', clientId: 'cli_z' };
    for (const x of [root, child, grandchild]) await store.insertToken(x);
    assert.equal(await store.isLineageRevoked(grandchild.hash), false);
    await store.revokeTokenTree(root.hash, 50); // revokes all three
    await store.insertToken({ ...token(orgId, child.hash), hash: 'late-child' }); // as if exchanged concurrently
    assert.equal(await store.isLineageRevoked('late-child'), true);
  });

  it('purges expired tokens in bounded batches and keeps current ones', async () => {
    const { store } = t;
    const { id: orgId } = await storedOrg(store);
    // Tokens left by the tests above expire at 2 000, after the cut-off, so only these three go.
    const expired = [token(orgId), token(orgId), token(orgId)].map((x, i) => ({ ...x, expiresAt: 100 + i }));
    const current = { ...token(orgId), expiresAt: 9_000_000_000_000 };
    for (const x of [...expired, current]) await store.insertToken(x);
    assert.equal(await store.deleteExpiredTokens(1_000, 2), 2);
    assert.equal(await store.deleteExpiredTokens(1_000, 2), 1);
    for (const x of expired) assert.equal(await store.findToken(x.hash), undefined);
    assert.deepEqual(await store.findToken(current.hash), current);
  });
});
