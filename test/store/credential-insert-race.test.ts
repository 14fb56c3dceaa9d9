import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { createPersonCredential } from '../../src/credentials/create-credential.ts';
import { newId } from '../../src/crypto/ids.ts';
import { createOrganization } from '../../src/organizations/create-organization.ts';
import { newPerson } from '../../src/persons/operations.ts';
import { ConflictError } from '../../src/store/errors.ts';
import { openStore } from '../../src/store/open-store.ts';
import { UniqueViolation } from '../../src/store/sql-driver.ts';
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

  describe('One passkey inserted for two persons at once, on postgres', () => {
    // The race the look-up before the insert cannot see: another transaction has inserted the same
    // credential id for another person and not committed. Ours finds nothing, inserts, and waits on
    // the unique index of migration 14 until the other ends.
    for (const unlessHolding of [false, true]) {
      const through = unlessHolding ? 'createCredentialUnlessHolding (a first second factor)' : 'createCredential';
      it(`through ${through}: when the other commits, ours is ConflictError 'passkey' with nothing of it stored; when it rolls back, ours is stored`, async () => {
        const database = await postgres.fresh();
        const { store } = await openStore(database.url);
        const other = new pg.Client({ connectionString: database.url });
        const watcher = new pg.Client({ connectionString: database.url });
        await other.connect();
        await watcher.connect();
        try {
          const { org } = await createOrganization(store, 'passkey-race');
          const [first, second] = [newPerson(org.id, { handles: [] }), newPerson(org.id, { handles: [] })];
          for (const person of [first, second]) await store.createPerson(person);
          const params = (webauthnId: string) => ({ webauthn_credential_id: webauthnId, public_key: 'AQID' });
          const create = (webauthnId: string) =>
            createPersonCredential(store, (code) => code, {
              orgId: org.id,
              personId: second.id,
              type: 'public-key',
              label: null,
              prepared: { params: params(webauthnId), secret: null },
              audit: {},
              at: Date.now(),
              ...(unlessHolding ? { unlessHolding: { types: ['totp'], refusal: () => new Error('holding') } } : {}),
            });
          /** Begins the other transaction with the credential id inserted for the first person; its transaction id, as pg_locks names it. */
          const insertedElsewhere = async (webauthnId: string): Promise<string> => {
            await other.query('BEGIN');
            await other.query(
              `INSERT INTO credentials (id, org_id, person_id, type, label, params, secret, version, last_used, created_at)
               VALUES ($1, $2, $3, 'public-key', NULL, $4, NULL, 0, NULL, $5)`,
              [newId('crd'), org.id, first.id, JSON.stringify(params(webauthnId)), Date.now()],
            );
            const { rows } = await other.query('SELECT pg_current_xact_id()::text AS xid');
            return String(BigInt(rows[0].xid) % 2n ** 32n);
          };
          /** Until ours waits on the other's uncommitted index entry (asked on a connection of its own). */
          const waitingOn = async (xid: string) => {
            for (let i = 0; i < 100; i++) {
              const { rows } = await watcher.query(
                "SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND locktype = 'transactionid' AND transactionid = $1::xid",
                [xid],
              );
              if (rows[0].n > 0) return;
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
            assert.fail('the insert never waited on the other transaction');
          };

          const taken = newId('wid');
          const holding = await insertedElsewhere(taken);
          const refused = create(taken);
          refused.catch(() => {});
          await waitingOn(holding);
          await other.query('COMMIT');
          // Refused by the index (the look-up before found nothing), and read as the conflict it is.
          await assert.rejects(
            refused,
            (error: unknown) => error instanceof ConflictError && error.subject === 'passkey' && error.cause instanceof UniqueViolation,
          );
          assert.deepEqual(await store.listCredentialsOfType(org.id, second.id, 'public-key'), []);
          const events = await store.listAuditEvents(org.id, 'credential.created', { position: { kind: 'first' }, limit: 10 });
          assert.deepEqual(events.items, [], 'no event of the refused credential');

          const freed = newId('wid');
          const rollingBack = await insertedElsewhere(freed);
          const stored = create(freed);
          await waitingOn(rollingBack);
          await other.query('ROLLBACK');
          assert.equal((await stored)?.params.webauthn_credential_id, freed);
        } finally {
          await other.end();
          await watcher.end();
          await store.close();
          await database.drop();
        }
      });
    }
  });
}
