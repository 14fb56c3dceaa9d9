import { createServer } from 'node:http';

/**
 * The demo's protected upstream: answers with what it received, the Authorization header's
 * JWT decoded (unverified: this is a mirror, not a resource server) so the act chain shows.
 */
export async function startEchoUpstream(port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const authorization = request.headers.authorization ?? '';
    const token = authorization.replace(/^Bearer /, '');
    let delegated: unknown = null;
    try {
      delegated = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
    } catch {
      delegated = null;
    }
    request.resume();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      `${JSON.stringify(
        {
          upstream: 'tessera demo echo',
          received: `${request.method} ${request.url}`,
          header_names: Object.keys(request.headers).sort(),
          authorization: token ? `Bearer ${token.slice(0, 12)}…${token.slice(-6)}` : null,
          delegated_token_claims: delegated,
        },
        null,
        2,
      )}\n`,
    );
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
