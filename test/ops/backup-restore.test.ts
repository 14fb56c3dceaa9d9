import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { importCredential, login, loginPerson, policyHash } from '../helpers/authn.ts';
import { exited, spawnCli } from '../helpers/cli.ts';
import { type ClientCredentials, claims, clientToken, EXCHANGE, introspect, JWT_TYPE, mintPersonToken, registerClient, token } from '../helpers/oauth.ts';
import { createOrg, type FreshDatabase, freshDatabase, postgresServerUrl, REPLICA_ISSUER, type Replica, startReplica } from '../helpers/replicas.ts';
import type { TestOrg } from '../helpers/service.ts';

// The backup and restore of docs/operations.md ("Backups and restore"), with the commands it
// shows: pg_dump -Fc of a database a replica is serving, pg_restore into a new one, and a
// replica with the same TESSERA_SECRET picking up where the first left off.
const server = postgresServerUrl();
const PASSWORD = 'correct horse battery staple';
const run = promisify(execFile);

/** A PostgreSQL client program: on PATH, as the doc runs it, else the newest of Debian's versioned ones. */
function pgTool(name: 'pg_dump' | 'pg_restore'): string {
  const onPath = (process.env.PATH ?? '').split(':').filter(Boolean);
  const debian = (() => {
    try {
      return readdirSync('/usr/lib/postgresql')
        .sort((a, b) => Number(b) - Number(a))
        .map((version) => `/usr/lib/postgresql/${version}/bin`);
    } catch {
      return [];
    }
  })();
  const found = [...onPath, ...debian].map((dir) => join(dir, name)).find(isExecutable);
  if (!found)
    throw new Error(`${name} is not on PATH nor in /usr/lib/postgresql/*/bin: install the PostgreSQL client programs (apt-get install postgresql-client)`);
  return found;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function readyz(replica: Replica): Promise<{ status: number; body: any }> {
  const response = await replica.t.call('GET', '/readyz');
  return { status: response.status, body: response.body };
}

async function signingKeys(url: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('SELECT kid, status, retired_at FROM signing_keys ORDER BY kid')).rows;
  } finally {
    await client.end();
  }
}

/** `tessera service` that is expected not to start: its exit status and what it printed, or a failure after 20 s. */
async function serviceThatMustNotStart(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawnCli(['service'], env);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await exited(child);
  clearTimeout(timer);
  return { code, output };
}

if (server) {
  describe('A PostgreSQL backup restored into a new database, as docs/operations.md shows', () => {
    const work = mkdtempSync(join(tmpdir(), 'tessera-backup-'));
    const dump = join(work, 'tessera.dump');
    let source: FreshDatabase;
    let restored: FreshDatabase;
    let replica: Replica | undefined;
    let org: TestOrg;
    let client: ClientCredentials;
    let person: { id: string; email: string };
    let opaque: string;
    let personJwt: string;
    let readyBefore: { status: number; body: any };

    before(async () => {
      source = await freshDatabase(server);
      restored = await freshDatabase(server);
      replica = await startReplica({ databaseUrl: source.url });
      org = await createOrg(source.url);
      person = await loginPerson(replica.t, org);
      await importCredential(replica.t, org, person.id, 'password', { password_hash: await policyHash(PASSWORD) });
      client = await registerClient(replica.t, org);
      opaque = await clientToken(replica.t, client);
      personJwt = await mintPersonToken(replica.t, org, person.id);
      readyBefore = await readyz(replica);

      // Taken while the replica serves: pg_dump reads one consistent snapshot.
      await run(pgTool('pg_dump'), ['-Fc', '-f', dump, source.url]);
      await replica.kill('SIGTERM');
      await run(pgTool('pg_restore'), ['--no-owner', '--exit-on-error', '-d', restored.url, dump]);
      replica = await startReplica({ databaseUrl: restored.url });
    });
    after(async () => {
      await replica?.kill('SIGKILL');
      await Promise.all([source?.drop(), restored?.drop()]);
      rmSync(work, { recursive: true, force: true });
    });

    it('is ready at the same schema version, signing with the same key', async () => {
      assert.equal(readyBefore.status, 200, JSON.stringify(readyBefore.body));
      assert.equal(opaque.startsWith('eyJ'), false, 'the client_credentials token is opaque');
      assert.equal(personJwt.startsWith('eyJ'), true, 'the minted person token is a JWT');
      const readyAfter = await readyz(replica!);
      assert.equal(readyAfter.status, 200, JSON.stringify(readyAfter.body));
      assert.deepEqual(readyAfter.body.result, readyBefore.body.result);
    });

    it('knows the opaque token issued before the backup', async () => {
      const answer = await introspect(replica!.t, opaque, org);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.active, true, JSON.stringify(answer.body));
      assert.equal(answer.body.client_id, client.id);
    });

    it('accepts the person JWT signed before the backup, and signs new tokens from it', async () => {
      const answer = await introspect(replica!.t, personJwt, org);
      assert.equal(answer.body.active, true, JSON.stringify(answer.body));
      assert.equal(answer.body.sub, person.id);
      const exchanged = await token(
        replica!.t,
        { grant_type: EXCHANGE, subject_token: personJwt, subject_token_type: JWT_TYPE, requested_token_type: JWT_TYPE },
        client,
      );
      assert.equal(exchanged.status, 200, JSON.stringify(exchanged.body));
      const header = JSON.parse(Buffer.from(exchanged.body.access_token.split('.')[0], 'base64url').toString('utf8'));
      assert.equal(header.kid, readyBefore.body.result.signing_key, 'signed with the restored key, unsealed by the same TESSERA_SECRET');
      assert.deepEqual([claims(exchanged.body.access_token).sub, claims(exchanged.body.access_token).iss], [person.id, REPLICA_ISSUER]);
    });

    it('logs the person in with the password imported before the backup', async () => {
      const refused = await login(replica!.t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: 'not it' });
      assert.equal(refused.status, 401, JSON.stringify(refused.body));
      const answer = await login(replica!.t, org, '/authn/password', { handle: { type: 'email_address', value: person.email }, password: PASSWORD });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.result.person_id, person.id);
    });

    it('refuses to start with another TESSERA_SECRET, and changes nothing', async () => {
      await replica!.kill('SIGTERM');
      const keys = await signingKeys(restored.url);
      const { code, output } = await serviceThatMustNotStart({
        DATABASE_URL: restored.url,
        TESSERA_SECRET: 'another-secret-of-at-least-32-characters',
        TESSERA_ISSUER: REPLICA_ISSUER,
        TESSERA_PORT: '0',
      });
      assert.equal(code, 1, output);
      assert.match(
        output,
        new RegExp(`tessera service: cannot unseal signing key ${readyBefore.body.result.signing_key}: TESSERA_SECRET is not the secret it was sealed with`),
      );
      assert.deepEqual(await signingKeys(restored.url), keys, 'no key was made or retired');
    });
  });
}
