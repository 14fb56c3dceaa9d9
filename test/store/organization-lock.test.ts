import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createOrganization } from '../../src/organizations/create-organization.ts';
import { changePersonAccess, newPerson, signOutEverywhere } from '../../src/persons/operations.ts';
import { openStore } from '../../src/store/open-store.ts';
import { backends } from '../helpers/backends.ts';

const ROUNDS = 40;

for (const backend of backends()) {
  describe(`The organisation lock beside changes and their audit events, on ${backend.name}`, () => {
    it('regression: an API-key change of a person racing a console change of that person deadlocked on PostgreSQL (its audit event takes a key-share lock on the organisation)', async () => {
      const database = await backend.fresh();
      const { store } = await openStore(database.url);
      try {
        const { org } = await createOrganization(store, 'locks');
        const person = async (n: number) => {
          const created = newPerson(org.id, { handles: [{ type: 'email_address', value: `admin${n}@locks.example` }], roles: ['admin'], console: true });
          await store.createPerson(created);
          return created;
        };
        const [admin, target] = [await person(1), await person(2), await person(3)];
        const refused: unknown[] = [];
        for (let i = 0; i < ROUNDS; i++) {
          const actor = (await store.getPerson(org.id, admin!.id))!;
          const outcomes = await Promise.allSettled([
            signOutEverywhere(store, org.id, target!.id, Date.now(), { kind: 'api_key', apiKeyId: 'key_locks' }),
            changePersonAccess(
              store,
              org.id,
              target!.id,
              { console: i % 2 === 0 },
              Date.now(),
              { kind: 'console', personId: admin!.id },
              {
                personId: admin!.id,
                generation: actor.generation,
              },
            ),
          ]);
          refused.push(...outcomes.filter((outcome) => outcome.status === 'rejected').map((outcome) => (outcome as PromiseRejectedResult).reason));
        }
        assert.deepEqual(refused, [], 'every change went through');
      } finally {
        await store.close();
        await database.drop();
      }
    });
  });
}
