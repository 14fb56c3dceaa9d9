import { createServer } from 'node:http';
import { Pool } from 'undici';

/**
 * The least a Node proxy can do, as a floor for the gateway's rows: node:http in front of an
 * undici pool with keep-alive, the request's headers passed on and the answer written straight
 * into the response, as the gateway's forward does, and nothing else (no header policy, no
 * limits, no timeouts, no metrics, no error answers). Not a peer a deployment would run.
 */
const pool = new Pool(process.env.UPSTREAM!, { connections: 128 });
createServer((request, response) => {
  pool.dispatch(
    { method: request.method as 'GET', path: request.url!, headers: { host: request.headers.host ?? '' }, body: null },
    {
      onRequestStart() {},
      onResponseStart(_controller, statusCode, headers) {
        response.writeHead(statusCode, headers as Record<string, string>);
      },
      onResponseData(_controller, chunk) {
        response.write(chunk);
      },
      onResponseEnd() {
        response.end();
      },
      onResponseError() {
        response.destroy();
      },
    },
  );
}).listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
