import type { Server } from 'node:http';

/**
 * Stops an HTTP server the way a load balancer expects once it has stopped sending: `close`
 * (the server's own, or fastify's app.close, which calls it) stops accepting and resolves when
 * every connection has ended; meanwhile each keep-alive connection is closed as soon as it is
 * idle, so idle clients do not hold the drain open, and whatever is still open after
 * `timeoutMs` is cut. Resolves false when it had to cut. Shared by the service and the gateway
 * (a leaf: it imports nothing of either).
 */
export async function drainServer(server: Server, close: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let cut = false;
  const deadline = setTimeout(() => {
    cut = true;
    server.closeAllConnections();
  }, timeoutMs);
  const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
  try {
    const closed = close();
    server.closeIdleConnections();
    await closed;
  } finally {
    clearTimeout(deadline);
    clearInterval(idleSweep);
  }
  return !cut;
}
