import type { Server } from 'node:http';
import { BlockList, isIP, type Socket } from 'node:net';
import { sourceOf } from './client-source.ts';

/**
 * What every port the product opens holds a client to (design §5, "Listeners"): the service,
 * the gateway's proxy and admin ports, and the forward-auth port. One module, so that a new
 * listener gets every bound by calling one function, and no port is the weak one.
 */
export interface ListenerPolicy {
  /** The request line and headers must be complete within this after the connection's first byte (or its opening); 408 after. */
  headersTimeoutMs: number;
  /** The whole request, body included, must have arrived within this after it began; 408 after. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /**
   * A connection on which no byte moves either way for this long is closed, whatever it waits
   * for: a client that stops reading an answer held its place for ever (the other timeouts end
   * once a request has arrived).
   */
  idleTimeoutMs: number;
  /** A connection serves at most this many requests; the last answer carries `Connection: close`. */
  maxRequestsPerConnection: number;
  /** Open connections this process holds at once; one more is refused. */
  maxConnections: number;
  /** Open connections from one client address at once; one more is refused (trusted proxies exempt). */
  maxConnectionsPerAddress: number;
}

/**
 * A connection over a cap gets this and is closed before any of it is read: no parser, no
 * request, no envelope (which would need the protocol of the listener). One constant buffer, so
 * a flood costs an accept, a write and a close per connection.
 */
const REFUSAL = Buffer.from('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', 'latin1');

/** How long a connection our side has finished may wait for the client to close its side. */
export const HALF_OPEN_LINGER_MS = 1_000;

/** A property Node reads (createServer's option of that name) that @types/node does not list. */
type CheckedServer = Server & { connectionsCheckingInterval: number };

/** The open connections of a listener, overall and by client address. */
export interface ConnectionCount {
  total(): number;
  from(address: string): number;
}

/**
 * Applies the policy to a node:http server before it listens. `trustedProxies` (a load balancer
 * carries many clients on its connections) are exempt from the per-address cap, not the total.
 */
export function applyListenerPolicy(server: Server, policy: ListenerPolicy, trustedProxies: BlockList): ConnectionCount {
  server.headersTimeout = policy.headersTimeoutMs;
  server.requestTimeout = policy.requestTimeoutMs;
  // Node tests both timeouts only every connectionsCheckingInterval (30 s by default, so a 60 s
  // headers timeout cut at up to 90 s): a tenth of the shorter one, from 50 ms to 1 s. Read when
  // the server starts listening, which is why the policy is applied before.
  (server as CheckedServer).connectionsCheckingInterval = Math.min(
    1_000,
    Math.max(50, Math.floor(Math.min(policy.headersTimeoutMs, policy.requestTimeoutMs) / 10)),
  );
  server.keepAliveTimeout = policy.keepAliveTimeoutMs;
  // No 'timeout' listener on the server: Node destroys a socket idle this long.
  server.timeout = policy.idleTimeoutMs;
  server.maxRequestsPerSocket = policy.maxRequestsPerConnection;

  const byAddress = new Map<string, number>();
  let total = 0;
  // Before the HTTP server's own listener: a refused socket is gone before a parser is attached.
  server.prependListener('connection', (socket: Socket) => {
    const peer = clientAddress(socket);
    const exempt = peer === undefined || trustedProxies.check(peer, isIP(peer) === 6 ? 'ipv6' : 'ipv4');
    // Counted by source: an IPv6 client picks its address freely within its /64.
    const address = peer === undefined ? undefined : sourceOf(peer);
    const fromAddress = address === undefined ? 0 : (byAddress.get(address) ?? 0);
    if (total >= policy.maxConnections || (!exempt && fromAddress >= policy.maxConnectionsPerAddress)) return refuse(socket);
    total++;
    if (address !== undefined) byAddress.set(address, fromAddress + 1);
    // Node's HTTP server lets a connection stay half open: once it has sent its last bytes and
    // its FIN (a 408, a keep-alive timeout, `Connection: close`), the socket is closed only when
    // the client closes its side. A client that never does would keep its place in the counts
    // for ever, and a few hundred such sockets filled the caps for good. So a finished socket is
    // closed after a linger: at once, a close with unread input (a body after a 413) sends a
    // reset, which can discard the answer before the client has read it.
    socket.once('finish', () => setTimeout(() => socket.destroy(), HALF_OPEN_LINGER_MS).unref());
    socket.once('close', () => {
      total--;
      if (address === undefined) return;
      const left = (byAddress.get(address) ?? 1) - 1;
      if (left === 0) byAddress.delete(address);
      else byAddress.set(address, left);
    });
  });
  return { total: () => total, from: (address) => byAddress.get(address) ?? 0 };
}

/** The peer's address, an IPv4-mapped IPv6 one (`::ffff:10.0.0.1`, on a dual-stack port) as IPv4. */
function clientAddress(socket: Socket): string | undefined {
  const address = socket.remoteAddress;
  if (address === undefined) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

function refuse(socket: Socket): void {
  // A fresh socket's send buffer is empty: the write reaches the kernel at once, and the close
  // after it neither waits for the client nor leaves a half-open connection to count.
  socket.on('error', () => {});
  socket.write(REFUSAL);
  socket.destroy();
}

/** A BlockList of IP addresses and CIDR ranges already checked by a configuration rule. */
export function addressBlockList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', bits] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}
