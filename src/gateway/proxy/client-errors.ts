import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { GatewayError, gatewayErrorBody } from './gateway-error.ts';

/** Node's parser errors that have a status of their own; any other is a malformed request. */
const KNOWN: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'GATEWAY_REQUEST_TIMEOUT', 'the request headers did not arrive within headers_timeout'],
  // Both the 16 KiB header size and the max_headers count end here.
  HPE_HEADER_OVERFLOW: [431, 'GATEWAY_HEADERS_TOO_LARGE', 'the request headers exceed 16 KiB or max_headers fields'],
};

/**
 * Requests Node's parser refuses never become requests; they are answered in the gateway's
 * envelope all the same, and the connection is closed (what follows cannot be framed).
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return void socket.destroy();
  const [status, code, message] = KNOWN[error.code ?? ''] ?? [400, 'GATEWAY_MALFORMED_REQUEST', 'the request is not valid HTTP/1.1'];
  const body = gatewayErrorBody(new GatewayError(status, code, message));
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
