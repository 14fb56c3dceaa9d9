import assert from 'node:assert/strict';
import { it } from 'node:test';
import { hashSecret, newId, randomSecret } from '../../src/crypto/ids.ts';
import type { CredentialStore } from '../../src/store/credentials/store.ts';
import type { Invitation, InvitationStore } from '../../src/store/invitations/store.ts';
import type { OrganizationStore } from '../../src/store/organizations/store.ts';
import type { PersonStore } from '../../src/store/persons/store.ts';
import { contractOnEveryBackend, person, storedOrg } from './contract-harness.ts';

function invitation(orgId: string, personId: string, overrides: Partial<Invitation> = {}): Invitation {
  return { orgId, personId, tokenHash: hashSecret(randomSecret()), reset: false, createdAt: 1_000, expiresAt: 10_000, passwordSetAt: null, ...overrides };
}

const password = (orgId: string, personId: string) => ({
  id: newId('crd'),
  orgId,
  personId,
  type: 'password',
  label: null,
  params: { password_hash: 'x' },
  secret: { password_hash: 'x' },
  createdAt: 2_000,
});

contractOnEveryBackend<InvitationStore & PersonStore & OrganizationStore & CredentialStore>('Invitation store', (t) => {
  it('gives an invitation back by its token until it expires, one per person: a new one replaces the one before', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const b = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const first = invitation(a.id, p.id, { reset: true });
    assert.equal(await store.putInvitation(first), true);
    assert.deepEqual(await store.getInvitationByToken(first.tokenHash, 2_000), first);
    assert.deepEqual(await store.getInvitationOfPerson(a.id, p.id, 2_000), first);
    assert.equal(await store.getInvitationOfPerson(b.id, p.id, 2_000), undefined, 'another organisation');
    assert.equal(await store.getInvitationByToken(first.tokenHash, 10_000), undefined, 'expired');
    const second = invitation(a.id, p.id);
    await store.putInvitation(second);
    assert.equal(await store.getInvitationByToken(first.tokenHash, 2_000), undefined, 'revoked by the new one');
    assert.deepEqual(await store.getInvitationByToken(second.tokenHash, 2_000), second);
    assert.equal(await store.putInvitation(invitation(b.id, p.id)), false, 'a person of another organisation is nobody there');
  });

  it('sets the password and spends once, only while the invitation is as read, of any number of callers', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    const x = invitation(a.id, p.id);
    await store.putInvitation(x);
    const marks = await Promise.all([0, 1, 2].map(() => store.setInvitationPasswordSet(x.tokenHash, null, 3_000)));
    assert.deepEqual(marks.sort(), [false, false, true]);
    assert.equal((await store.getInvitationByToken(x.tokenHash, 3_001))?.passwordSetAt, 3_000);
    assert.equal(await store.spendInvitation(x.tokenHash, null), false, 'no longer as read');
    assert.equal(await store.setInvitationPasswordSet(x.tokenHash, 3_000, 10_000), false, 'expired');
    const spends = await Promise.all([0, 1].map(() => store.spendInvitation(x.tokenHash, 3_000)));
    assert.deepEqual(spends.sort(), [false, true]);
    assert.equal(await store.getInvitationByToken(x.tokenHash, 3_001), undefined);
  });

  it('goes with its person, is revoked on request, and expired ones are purged in bounded batches', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const [p, q, r] = [person(a.id), person(a.id), person(a.id)];
    for (const one of [p, q, r]) await store.createPerson(one);
    const [x, y, z] = [invitation(a.id, p.id), invitation(a.id, q.id, { expiresAt: 5_000 }), invitation(a.id, r.id, { expiresAt: 5_000 })];
    for (const one of [x, y, z]) await store.putInvitation(one);
    assert.equal(await store.deletePerson(a.id, p.id, 2_000), true);
    assert.equal(await store.getInvitationByToken(x.tokenHash, 2_000), undefined, 'deleted with the person');
    assert.equal(await store.revokeInvitation(a.id, q.id), true);
    assert.equal(await store.revokeInvitation(a.id, q.id), false);
    await store.putInvitation(y);
    assert.equal(await store.purgeInvitations(5_000, 1), 1);
    assert.equal(await store.purgeInvitations(5_000, 10), 1);
    assert.equal(await store.purgeInvitations(5_000, 10), 0);
  });

  it('replaces everything a person holds by one credential, raising their generation only when something was removed', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const p = person(a.id);
    await store.createPerson(p);
    assert.equal(await store.replaceCredentialsOfPerson(password(a.id, p.id), 2_000), 0);
    assert.equal((await store.getPerson(a.id, p.id))?.generation, p.generation, 'nothing removed, nothing ended');
    await store.createCredential({ ...password(a.id, p.id), type: 'totp' });
    const replacement = password(a.id, p.id);
    assert.equal(await store.replaceCredentialsOfPerson(replacement, 3_000), 2);
    assert.deepEqual(
      (await store.listCredentials(a.id, p.id, { position: { kind: 'first' }, limit: 10 })).items.map((c) => c.id),
      [replacement.id],
    );
    assert.equal((await store.getPerson(a.id, p.id))?.generation, p.generation + 1);
    assert.equal(await store.replaceCredentialsOfPerson(password(a.id, 'per_nobody'), 3_000), undefined);
  });

  it('closes a half-used invitation when anything after its password raises the generation; an unused one, or one set at that time, stays', async () => {
    const { store } = t;
    const a = await storedOrg(store);
    const [p, q] = [person(a.id), person(a.id)];
    for (const one of [p, q]) await store.createPerson(one);
    const [half, unused] = [invitation(a.id, p.id), invitation(a.id, q.id)];
    for (const one of [half, unused]) await store.putInvitation(one);
    await store.setInvitationPasswordSet(half.tokenHash, null, 3_000);
    await store.replaceCredentialsOfPerson(password(a.id, p.id), 3_000);
    assert.equal(await store.replaceCredentialsOfPerson(password(a.id, p.id), 3_000), 1, 'a redemption at the time it set the password');
    assert.equal((await store.getInvitationByToken(half.tokenHash, 3_000))?.passwordSetAt, 3_000);
    const totp = { ...password(a.id, p.id), type: 'totp' };
    await store.createCredential(totp);
    assert.equal(await store.deleteCredential(a.id, p.id, totp.id, 4_000), true);
    assert.equal(await store.getInvitationByToken(half.tokenHash, 4_000), undefined, 'closed by the removal after it');
    assert.notEqual(await store.raisePersonGeneration(a.id, q.id, 4_000), undefined);
    assert.deepEqual(await store.getInvitationByToken(unused.tokenHash, 4_000), unused, 'a link nobody used yet is not closed');
  });
});
