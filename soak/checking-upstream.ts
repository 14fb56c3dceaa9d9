import { createServer } from 'node:http';

/**
 * The protected upstream behind the gateways. It checks every request as it comes: the caller's
 * own token must appear nowhere in it (no header, no path), and Authorization must carry a
 * delegated token, a JWT whose `act` claim names the gateway's client.
 */
export interface CheckingUpstream {
  url: string;
  requests: number;
  leaks: string[];
  close(): Promise<void>;
}

export async function startCheckingUpstream(originals: readonly string[]): Promise<CheckingUpstream> {
  const upstream: CheckingUpstream = { url: '', requests: 0, leaks: [], close: async () => {} };
  const leak = (text: string) => upstream.leaks.length < 100 && upstream.leaks.push(text);
  const server = createServer((request, response) => {
    upstream.requests++;
    const seen = `${request.url}\n${request.rawHeaders.join('\n')}`;
    if (originals.some((token) => seen.includes(token))) leak(`a caller's own token reached the upstream (${request.url})`);
    const delegated = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!delegated) leak(`a request reached the upstream without a delegated token (${request.url})`);
    else if (!claimsOf(delegated)?.act) leak(`the token that reached the upstream is not a delegated one (${request.url})`);
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  upstream.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return upstream;
}

function claimsOf(jwt: string): { act?: unknown } | undefined {
  try {
    return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}
