import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { createPersonCredential } from '../../src/credentials/create-credential.ts';
import { createOrganization } from '../../src/organizations/create-organization.ts';
import { newPerson } from '../../src/routes/persons.ts';
import { openStore } from '../../src/store/open-store.ts';
import { backends } from '../helpers/backends.ts';

// The race needs a second connection holding a deletion open: PostgreSQL's (SQLite has one writer).
const postgres = backends().find((backend) => backend.name === 'postgres');

if (postgres) {
  describe('A credential created while its person is being deleted, on postgres', () => {
    it('regression: inside the change’s transaction the foreign-key failure aborted it (25P02, a 500); now it is "no such person" (404)', async () => {
      const database = await postgres.fresh();
      const { store } = await openStore(database.url);
      const other = new pg.Client({ connectionString: database.url });
      await other.connect();
      try {
        const { org } = await createOrganization(store, 'race');
        const person = newPerson(org.id, { handles: [{ type: 'email_address', value: 'gone@race.example' }] });
        await store.createPerson(person);
        await other.query('BEGIN');
        await other.query('DELETE FROM persons WHERE id = $1', [person.id]);
        // Its INSERT … SELECT sees the person, then waits on the deletion's row lock.
        const creating = createPersonCredential(store, (code) => code, {
          orgId: org.id,
          personId: person.id,
          type: 'password',
          label: null,
          prepared: { params: {}, secret: { password_hash: 'x' } },
          audit: {},
          at: Date.now(),
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        await other.query('COMMIT');
        assert.equal(await creating, undefined, 'no credential, and no error: the person is gone');
        assert.deepEqual(await store.listCredentialsOfType(org.id, person.id, 'password'), []);
      } finally {
        await other.end();
        await store.close();
        await database.drop();
      }
    });
  });
}
