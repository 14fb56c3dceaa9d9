import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Answers on a raw socket a request that Node's HTTP parser refused (it never became a
 * request, so there is no response object), then closes the connection: what follows on it
 * cannot be framed. A connection the client has already reset gets no answer.
 */
export function answerOnSocket(
  socket: Socket,
  error: NodeJS.ErrnoException,
  answer: () => { status: number; body: string; headers?: Record<string, string> },
): void {
  // A request timeout can strike while its answer is being written (the body still coming):
  // bytes of ours after that answer's would corrupt it, so the connection is only closed.
  const answering = (socket as Socket & { _httpMessage?: { headersSent: boolean } | null })._httpMessage;
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable || answering?.headersSent) return void socket.destroy();
  const { status, body, headers = {} } = answer();
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}
