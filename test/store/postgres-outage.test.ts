import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { type Backend, backends } from '../helpers/backends.ts';
import { errorCodes, startTestService } from '../helpers/service.ts';

/** A TCP relay in front of PostgreSQL that the test can cut and restore, like a database restart. */
class Relay {
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  readonly target: { host: string; port: number };
  port = 0;
  /** Accept connections but pass nothing on: a database that does not answer. */
  hanging = false;
  constructor(target: { host: string; port: number }) {
    this.target = target;
  }

  async up(): Promise<void> {
    this.#server = createServer((client) => {
      if (this.hanging) {
        this.#sockets.add(client);
        client.on('close', () => this.#sockets.delete(client));
        client.on('error', () => {});
        return;
      }
      const upstream = connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.#sockets.add(s);
        s.on('close', () => this.#sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.#server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.#server.address() as { port: number }).port;
  }

  /** Cuts the connections open now; new ones are held without an answer. */
  hang(): void {
    this.hanging = true;
    for (const socket of this.#sockets) socket.destroy();
  }

  async down(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }
}

/** The service over a fresh database of `postgres`, reached through a Relay the test controls. */
async function serviceBehindRelay(postgres: Backend) {
  const database = await postgres.fresh();
  const url = new URL(database.url);
  const relay = new Relay({ host: url.hostname, port: Number(url.port || 5432) });
  await relay.up();
  url.host = `127.0.0.1:${relay.port}`;
  const t = await startTestService({ name: 'postgres', fresh: async () => ({ url: url.toString(), drop: async () => {} }) });
  return { database, relay, t };
}

const postgres = backends().find((b) => b.name === 'postgres');
if (postgres) {
  describe('PostgreSQL going away and coming back', () => {
    it('answers 503 STORAGE_UNAVAILABLE (and /readyz 503) while it is down, writes nothing, and recovers by itself', async () => {
      const { database, relay, t } = await serviceBehindRelay(postgres);
      try {
        const org = await t.org();
        assert.equal((await t.call('GET', '/persons', { as: org })).status, 200);

        await relay.down();
        for (const [method, path, body] of [
          ['GET', '/persons', undefined],
          ['POST', '/persons', { handles: [{ type: 'email_address', value: 'lost@example.com' }] }],
        ] as const) {
          const response = await t.call(method, path, { as: org, body });
          assert.equal(response.status, 503, `${method} ${path}`);
          assert.deepEqual(errorCodes(response.body), ['STORAGE_UNAVAILABLE']);
          assert.equal(response.headers.get('retry-after'), '1');
        }

        const ready = await t.call('GET', '/readyz');
        assert.equal(ready.status, 503);
        assert.deepEqual(errorCodes(ready.body), ['SERVICE_NOT_READY']);
        assert.match(ready.body.errors[0].message, /the database cannot be reached/);
        assert.equal((await t.call('GET', '/healthz')).status, 200, 'alive: a database outage must not get every replica restarted');

        await relay.up();
        assert.equal((await t.call('GET', '/readyz')).status, 200);
        const after = await t.call('GET', '/persons', { as: org });
        assert.equal(after.status, 200);
        assert.equal(after.body.meta.cursor_pagination.total_count, 0, 'the write during the outage left nothing');
      } finally {
        await t.close();
        await relay.down();
        await database.drop();
      }
    });

    it('answers /readyz within its bound when the database accepts connections but never answers, and is ready once it answers again', async () => {
      const { database, relay, t } = await serviceBehindRelay(postgres);
      try {
        relay.hang();
        const started = Date.now();
        const probes = await Promise.all(Array.from({ length: 5 }, () => t.call('GET', '/readyz')));
        const took = Date.now() - started;
        for (const probe of probes) {
          assert.equal(probe.status, 503);
          assert.match(probe.body.errors[0].message, /the database did not answer within 2 s/);
        }
        assert.ok(took < 4_000, `answered after ${took} ms`);

        // The database answers again, but the checks above stay stuck on their held connections:
        // a probe must not wait on them (regression: later probes all joined a stuck check, here until
        // the pool gave up connecting after 5 s; a query stuck on an open connection held them for good).
        relay.hanging = false;
        const answering = Date.now();
        const ready = await t.call('GET', '/readyz');
        assert.equal(ready.status, 200, JSON.stringify(ready.body));
        assert.ok(Date.now() - answering < 1_500, `ready ${Date.now() - answering} ms after the database answered again`);
      } finally {
        relay.hanging = false;
        await relay.down();
        await t.close();
        await database.drop();
      }
    });
  });
}
