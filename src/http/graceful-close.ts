import type { FastifyInstance } from 'fastify';

export interface ShutdownTiming {
  /** How long to keep serving after readiness turned 503, so load balancers stop sending first. */
  delayMs: number;
  /** How long requests in flight get to finish once the instance stops accepting. */
  timeoutMs: number;
}

/**
 * Stops an app the way a load balancer expects: keep serving for `delayMs` (the caller has
 * already made /readyz fail), then stop accepting and let requests in flight finish, cutting
 * whatever is still open after `timeoutMs`. Resolves with whether anything had to be cut.
 */
export async function closeGracefully(app: FastifyInstance, { delayMs, timeoutMs }: ShutdownTiming): Promise<{ cut: boolean }> {
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  let cut = false;
  const deadline = setTimeout(() => {
    cut = true;
    app.server.closeAllConnections();
  }, timeoutMs);
  // Keep-alive connections that finish their request must not hold the drain open until the
  // deadline: once the server stops accepting, each one is closed as soon as it is idle.
  const idleSweep = setInterval(() => app.server.closeIdleConnections(), 100);
  try {
    await app.close();
  } finally {
    clearTimeout(deadline);
    clearInterval(idleSweep);
  }
  return { cut };
}
