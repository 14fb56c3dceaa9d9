import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { errorCodes, startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const sqlite = { name: 'sqlite' as const, fresh: async () => ({ url: 'sqlite::memory:', drop: async () => {} }) };

/** A POST /persons whose body is held back: a request in flight for as long as the test likes. */
async function slowCreate(t: TestService, org: TestOrg, email: string) {
  const body = JSON.stringify({ handles: [{ type: 'email_address', value: email }] });
  const { port } = new URL(t.url);
  const socket: Socket = connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let answer = '';
  socket.on('data', (chunk) => (answer += chunk));
  const ended = new Promise<string>((resolve) => socket.once('close', () => resolve(answer)));
  const headers = Object.entries(org.headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.write(`POST /persons HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${headers.join('')}\r\n`);
  socket.write(body.slice(0, 10));
  // Until the service has read the headers the connection is idle, and may be closed as such.
  await new Promise((resolve) => setTimeout(resolve, 100));
  return { finish: () => socket.write(body.slice(10)), ended };
}

const refused = (url: string) =>
  fetch(`${url}/healthz`).then(
    () => false,
    (error: Error) => (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ECONNREFUSED',
  );

describe('Graceful shutdown', () => {
  it('fails readiness at once, serves through TESSERA_SHUTDOWN_DELAY, then stops accepting and lets requests in flight finish', async () => {
    const t = await startTestService(sqlite, { TESSERA_SHUTDOWN_DELAY: '2', TESSERA_SHUTDOWN_TIMEOUT: '10' });
    const org = await t.org();
    const inFlight = await slowCreate(t, org, 'in-flight@example.com');
    const started = Date.now();
    const closing = t.close();

    const ready = await t.call('GET', '/readyz');
    assert.equal(ready.status, 503);
    assert.deepEqual(errorCodes(ready.body), ['SERVICE_NOT_READY']);
    assert.match(ready.body.errors[0].message, /shutting down/);
    assert.equal(ready.headers.get('retry-after'), '1');
    assert.equal((await t.call('GET', '/persons', { as: org })).status, 200, 'still serving during the delay');

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 2_300 - Date.now())));
    assert.ok(await refused(t.url), 'no new connections after the delay');
    const finished = Date.now();
    inFlight.finish();
    assert.match(await inFlight.ended, /^HTTP\/1\.1 201 /, 'the request in flight was answered');
    await closing;
    // fetch's keep-alive connections are idle between requests: they must not hold the drain open.
    assert.ok(Date.now() - finished < 3_000, `closed ${Date.now() - finished} ms after the last request, not at the 10 s timeout`);
    await assert.rejects(t.service.store.getOrganization(org.orgId), { name: 'StorageUnavailableError' }, 'the pool is closed');
  });

  it('cuts a request still in flight after TESSERA_SHUTDOWN_TIMEOUT, and its client gets no answer', async () => {
    const t = await startTestService(sqlite, { TESSERA_SHUTDOWN_TIMEOUT: '1' });
    const org = await t.org();
    const stuck = await slowCreate(t, org, 'stuck@example.com');
    const started = Date.now();
    await t.close();
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 900 && elapsed < 3_000, `closed after ${elapsed} ms`);
    assert.equal(await stuck.ended, '', 'the connection was cut without an answer');
  });
});
