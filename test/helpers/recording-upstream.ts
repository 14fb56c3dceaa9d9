import { createServer, type IncomingHttpHeaders } from 'node:http';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

export interface RecordingUpstream {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Delay before answering, for timeout cases. */
  delayMs: number;
  close(): Promise<void>;
}

export interface RecordingUpstreamOptions {
  /**
   * A server to pass every request on to (as `<forwardTo><path>`, same method, headers and
   * body), answering with what it answers: a recorder in front of a real server, to see what
   * a client sent it. Without it the upstream answers a summary itself.
   */
  forwardTo?: string;
}

/** Hop-by-hop and length headers, which fetch sets itself. */
const NOT_FORWARDED = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

async function forward(target: string, request: RecordedRequest): Promise<{ status: number; contentType: string; body: Buffer }> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers))
    if (value !== undefined && !NOT_FORWARDED.has(name)) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  const answer = await fetch(`${target}${request.url}`, {
    method: request.method,
    headers,
    body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
  });
  return {
    status: answer.status,
    contentType: answer.headers.get('content-type') ?? 'application/octet-stream',
    body: Buffer.from(await answer.arrayBuffer()),
  };
}

/** A real upstream on 127.0.0.1:0 that records every request and echoes a summary (or forwards it, `forwardTo`). */
export async function startRecordingUpstream(options: RecordingUpstreamOptions = {}): Promise<RecordingUpstream> {
  const upstream: RecordingUpstream = { url: '', port: 0, requests: [], delayMs: 0, close: async () => {} };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const recorded = { method: request.method!, url: request.url!, headers: request.headers, rawHeaders: request.rawHeaders, body };
      upstream.requests.push(recorded);
      if (options.forwardTo) {
        forward(options.forwardTo, recorded).then(
          (answer) => response.writeHead(answer.status, { 'content-type': answer.contentType }).end(answer.body),
          () => response.writeHead(502, { 'content-type': 'text/plain' }).end('the recorder could not reach the server it forwards to'),
        );
        return;
      }
      setTimeout(() => {
        response.writeHead(200, { 'content-type': 'application/json', 'x-upstream': 'yes', connection: 'keep-alive' });
        response.end(JSON.stringify({ method: request.method, url: request.url, bytes: body.length }));
      }, upstream.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.port = (server.address() as { port: number }).port;
  upstream.url = `http://127.0.0.1:${upstream.port}`;
  upstream.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return upstream;
}
