import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { answerOnSocket } from '../../runtime/socket-answer.ts';
import { GatewayError, type GatewayErrorCode, gatewayErrorBody } from '../request/gateway-error.ts';

/** Node's parser errors that have a code of their own; any other is a malformed request. */
const KNOWN: Record<string, [GatewayErrorCode, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: ['GATEWAY_REQUEST_TIMEOUT', 'the request did not arrive within headers_timeout or request_timeout'],
  // Both the 16 KiB header size and the max_headers count end here.
  HPE_HEADER_OVERFLOW: ['GATEWAY_HEADERS_TOO_LARGE', 'the request headers exceed 16 KiB or max_headers fields'],
};

/**
 * Requests Node's parser refuses never become requests; they are answered in the gateway's
 * envelope all the same, with a request id of their own (the caller's could not be read),
 * and the connection is closed (what follows cannot be framed).
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  answerOnSocket(socket, error, () => {
    const refusal = new GatewayError(...(KNOWN[error.code ?? ''] ?? ['GATEWAY_MALFORMED_REQUEST', 'the request is not valid HTTP/1.1']));
    return { status: refusal.status, body: gatewayErrorBody(refusal), headers: { 'x-request-id': randomUUID() } };
  });
}

/**
 * CONNECT asks for a tunnel, which the gateway does not open; without this Node would drop the
 * connection unanswered. Its target (host:port) is neither a path nor an http(s) URL.
 */
export function refuseConnect(_request: IncomingMessage, socket: Socket): void {
  const refusal = new GatewayError('GATEWAY_BAD_REQUEST_TARGET', 'CONNECT is not supported: the gateway opens no tunnels');
  answerOnSocket(socket, new Error('CONNECT'), () => ({ status: refusal.status, body: gatewayErrorBody(refusal), headers: { 'x-request-id': randomUUID() } }));
}
