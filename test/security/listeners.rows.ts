import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { listenerDefaults } from '../../src/config/defaults.ts';
import { exchange, hold } from '../runtime/listener-sockets.ts';
import type { SecurityStack } from './harness.ts';
import type { SecurityRow } from './rows.ts';

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: tessera.test\r\nConnection: close\r\n\r\n`;

/** Fills one address's share of the listener at `url` with held connections, then checks the cap holds and another address passes. */
async function perAddressCap(url: string, health: string): Promise<void> {
  const held: Socket[] = [];
  try {
    for (let i = 0; i < listenerDefaults.maxConnectionsPerAddress; i++) held.push(await hold(url, '127.0.0.9'));
    const over = await exchange(url, '127.0.0.9', get(health));
    assert.match(over.text, /^HTTP\/1\.1 503 /, over.text);
    const other = await exchange(url, '127.0.0.10', get(health));
    assert.match(other.text, /^HTTP\/1\.1 200 /, other.text);
  } finally {
    for (const socket of held) socket.destroy();
  }
}

/**
 * Issue 24's listener findings, on the stack's own listeners at their defaults. The timeouts'
 * cases need timeouts of a few hundred milliseconds: they are in test/runtime/listeners.test.ts,
 * on each listener (slow headers, a stalled body, idle keep-alive, half-open clients, clients
 * that stop reading).
 */
export const listenerRows: SecurityRow[] = [
  {
    request: `service: ${listenerDefaults.maxConnectionsPerAddress} held connections from one address, then one more (20,000 half-open requests exhausted the process's file handles)`,
    expect: '503 for the one more, before anything is read; another address still gets /healthz',
    check: (s: SecurityStack) => perAddressCap(s.t.url, '/healthz'),
  },
  {
    request: `gateway proxy: ${listenerDefaults.maxConnectionsPerAddress} held connections from one address, then one more`,
    expect: '503 for the one more; another address is still proxied',
    check: (s: SecurityStack) => perAddressCap(s.gateways['header, on except /open/*'].url, '/open/x'),
  },
];
