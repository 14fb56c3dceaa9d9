import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { organizationConfigDefaults } from '../../src/config/defaults.ts';
import { newId } from '../../src/crypto/ids.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { NewPersonRecord } from '../../src/store/persons/store.ts';
import type { Store } from '../../src/store/store.ts';
import type { OAuthClient, OpaqueToken } from '../../src/store/types.ts';
import { backends } from '../helpers/backends.ts';
import { type FaultableDatabase, faultableDatabase, INJECTED_FAULT } from './revocation-fault.ts';

const config = { ...organizationConfigDefaults };

function token(orgId: string, party: { subject?: string; clientId?: string }, parentHash: string | null = null): OpaqueToken {
  return {
    hash: newId('h'),
    orgId,
    clientId: party.clientId ?? 'cli_gateway',
    subject: party.subject ?? 'per_someone',
    scope: '',
    audience: [],
    resource: [],
    act: null,
    mayAct: null,
    parentHash,
    issuedAt: 1_000,
    expiresAt: 9_000_000_000_000,
    revokedAt: null,
    personGeneration: null,
  };
}

for (const backend of backends()) {
  describe(`Deleting a party when revoking its tokens fails, on ${backend.name}`, () => {
    let database: FaultableDatabase;
    let store: Store;
    let orgId: string;

    before(async () => {
      database = await faultableDatabase(backend);
      store = (await openStore(database.url)).store;
      orgId = newId('org');
      await store.createOrganization(
        { id: orgId, name: orgId, config, createdAt: 1 },
        {
          id: newId('key'),
          orgId,
          name: 'first',
          kind: 'admin',
          secretHash: newId('hash'),
          createdAt: 1,
        },
      );
    });
    after(async () => {
      await store.close();
      await database.drop();
    });

    const live = async (tokens: OpaqueToken[]) => {
      for (const t of tokens) {
        assert.equal((await store.findToken(t.hash))?.revokedAt, null, 'the token was not revoked');
        assert.equal(await store.isLineageRevoked(t.hash), false);
      }
    };

    it('regression: a fault between delete and revoke left live tokens for a deleted person', async () => {
      const person: NewPersonRecord = {
        id: newId('per'),
        orgId,
        handles: [{ type: 'email_address', value: `${newId('p')}@example.com` }],
        roles: [],
        console: false,
        createdAt: 1,
      };
      await store.createPerson(person);
      const own = token(orgId, { subject: person.id });
      const exchanged = token(orgId, { clientId: 'cli_downstream' }, own.hash);
      for (const t of [own, exchanged]) await store.insertToken(t);

      await database.breakRevocation();
      try {
        await assert.rejects(store.revokeTokenTree(own.hash, 5), new RegExp(INJECTED_FAULT), 'the fault is real');
        await assert.rejects(store.deletePerson(orgId, person.id, 10), new RegExp(INJECTED_FAULT));
        assert.deepEqual(await store.getPerson(orgId, person.id), { ...person, generation: 0 }, 'the person is still there');
        assert.deepEqual(await store.findPersonByHandle(orgId, person.handles[0]!), { ...person, generation: 0 }, 'and so are their handles');
        await live([own, exchanged]);
      } finally {
        await database.mendRevocation();
      }

      assert.equal(await store.deletePerson(orgId, person.id, 20), true, 'without the fault the same delete goes through');
      assert.equal((await store.findToken(exchanged.hash))?.revokedAt, 20);
    });

    it('regression: a fault between delete and revoke left live tokens for a deleted client', async () => {
      const client: OAuthClient = {
        id: newId('cli'),
        orgId,
        name: 'gateway',
        scopes: [],
        grantTypes: ['client_credentials'],
        accessTokenDuration: 600,
        accessTokenFormat: 'opaque',
        authMethod: 'client_secret_basic',
        secretHash: newId('hash'),
        createdAt: 1,
      };
      await store.createClient(client);
      const issued = token(orgId, { clientId: client.id, subject: client.id });
      const exchanged = token(orgId, { clientId: 'cli_downstream' }, issued.hash);
      for (const t of [issued, exchanged]) await store.insertToken(t);

      await database.breakRevocation();
      try {
        await assert.rejects(store.deleteClient(orgId, client.id, 10), new RegExp(INJECTED_FAULT));
        assert.deepEqual(await store.getClient(orgId, client.id), client, 'the client is still there');
        await live([issued, exchanged]);
      } finally {
        await database.mendRevocation();
      }

      assert.equal(await store.deleteClient(orgId, client.id, 20), true, 'without the fault the same delete goes through');
      assert.equal((await store.findToken(exchanged.hash))?.revokedAt, 20);
    });
  });
}
