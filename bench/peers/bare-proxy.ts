import { createServer } from 'node:http';
import { Pool } from 'undici';

/**
 * The least a Node proxy can do, as a floor for the gateway's rows: node:http in front of an
 * undici pool with keep-alive, the answer written straight into the response as the gateway's
 * forward does, and nothing else: only Host is passed on (no other request header, no
 * forwarding headers), no header policy, limits, timeouts, metrics or error answers. Not a peer
 * a deployment would run, and a floor slightly below what passing the caller's headers costs.
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
