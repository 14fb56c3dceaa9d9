import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';

export type RelayMode = 'pass' | 'fail' | 'hang';

/**
 * What the gateways know as their service: a relay to the replicas that the soak can make
 * fail (500 from a broken token endpoint) or hang (no answer at all) for a while, and that
 * spreads requests over the replicas like a load balancer, skipping one that refuses.
 */
export interface TokenEndpointRelay {
  url: string;
  mode: RelayMode;
  close(): Promise<void>;
}

export async function startTokenEndpointRelay(replicaUrls: () => string[]): Promise<TokenEndpointRelay> {
  const held = new Set<ServerResponse>();
  let next = 0;
  const relay: TokenEndpointRelay = { url: '', mode: 'pass', close: async () => {} };

  const forward = (inbound: IncomingMessage, outbound: ServerResponse, body: Buffer, tries: number) => {
    const targets = replicaUrls();
    const target = new URL(targets[next++ % targets.length]!);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: inbound.method, path: inbound.url, headers: inbound.headers },
      (answer) => {
        outbound.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(outbound);
      },
    );
    // A replica that is down refuses the connection: try the other, as a balancer would.
    // Not once an answer has begun: then the exchange is broken, and the gateway sees it so.
    upstream.on('error', () => (tries > 1 && !outbound.headersSent ? forward(inbound, outbound, body, tries - 1) : outbound.destroy()));
    upstream.end(body);
  };

  const server = createServer((inbound, outbound) => {
    const chunks: Buffer[] = [];
    inbound.on('data', (chunk: Buffer) => chunks.push(chunk));
    inbound.on('end', () => {
      if (relay.mode === 'hang') {
        held.add(outbound);
        outbound.on('close', () => held.delete(outbound));
        return;
      }
      if (relay.mode === 'fail') return void outbound.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Internal Server Error</h1>');
      forward(inbound, outbound, Buffer.concat(chunks), 2);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  relay.close = () =>
    new Promise((resolve) => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return relay;
}
