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

/** A real upstream on 127.0.0.1:0 that records every request and echoes a summary. */
export async function startRecordingUpstream(): Promise<RecordingUpstream> {
  const upstream: RecordingUpstream = { url: '', port: 0, requests: [], delayMs: 0, close: async () => {} };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      upstream.requests.push({ method: request.method!, url: request.url!, headers: request.headers, rawHeaders: request.rawHeaders, body });
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
