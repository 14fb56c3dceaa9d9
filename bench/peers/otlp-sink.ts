import { createServer } from 'node:http';

/**
 * The collector of the tracing-on rows: accepts every OTLP/HTTP export, counts its bytes and
 * answers the empty protobuf success at once, so the rows measure what tracing costs the
 * traced process (spans, batching, encoding, the POST) and not a collector's own speed.
 */
let bytes = 0;
createServer((request, response) => {
  request.on('data', (chunk: Buffer) => (bytes += chunk.length));
  request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
}).listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  process.stderr.write(`otlp sink: ${(bytes / 2 ** 20).toFixed(1)} MiB of spans received\n`);
  process.exit(0);
});
