import { createServer } from 'node:http';

/** The protected upstream of the gateway benchmark: answers every request with a small JSON body. */
const body = JSON.stringify({ ok: true });
createServer((request, response) => {
  request.resume();
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}).listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
