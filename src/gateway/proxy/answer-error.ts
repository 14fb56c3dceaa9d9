import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { GatewayError, gatewayErrorBody } from '../request/gateway-error.ts';

/**
 * Answers a request that failed in the gateway's envelope (or cuts a response already begun),
 * and logs it where it is answered; returns the error as answered, for the metrics.
 */
export function answerGatewayError(error: unknown, request: IncomingMessage, response: ServerResponse, requestId: string, log: Logger): GatewayError {
  const known =
    error instanceof GatewayError ? error : new GatewayError('GATEWAY_INTERNAL_ERROR', 'an unexpected error occurred; it has been logged', { cause: error });
  log[known.status >= 500 ? 'warn' : 'info'](
    { requestId, code: known.code, cause: (known.cause as Error | undefined)?.message, method: request.method, path: request.url?.split('?')[0] },
    known.message,
  );
  request.resume(); // drain what the client still sends, so the connection stays usable
  if (!response.headersSent)
    response.writeHead(known.status, { ...known.headers, 'content-type': 'application/json; charset=utf-8' }).end(gatewayErrorBody(known));
  else response.destroy();
  return known;
}
