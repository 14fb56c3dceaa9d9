import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { GuardedGet, GuardedGetError } from '../../src/egress/guarded-get.ts';

describe('GuardedGet: loads undici on its first request, and refuses requests once closed', () => {
  let server: Server;
  let url: URL;
  before(async () => {
    server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":[]}'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`);
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('fetches a JSON document, then answers a request after close() with the shutdown reason, fetching nothing', async () => {
    const get = new GuardedGet({ allowLoopback: true, timeoutMs: 2_000, maxBytes: 1_024 });
    assert.deepEqual(await get.json(url, 'application/json'), { keys: [] });
    await get.close();
    let requests = 0;
    server.on('request', () => requests++);
    await assert.rejects(get.json(url, 'application/json'), (error: unknown) => {
      assert.ok(error instanceof GuardedGetError);
      assert.equal(error.message, 'is not fetched: the service is shutting down');
      return true;
    });
    assert.equal(requests, 0);
  });
});
