import { connect, type Socket } from 'node:net';

/**
 * A listener under test: its URL, a path that answers 200 to GET, a POST that waits for its body,
 * and a GET whose answer is large (to fill the buffers of a client that does not read).
 */
export interface Listener {
  url: string;
  health: string;
  post: { path: string; contentType: string; answer: RegExp };
  large?: { path: string; times: number };
}

export interface Exchange {
  /** Everything the server sent before it closed the connection. */
  text: string;
  /** From the first byte written to the server's close. */
  closedAfterMs: number;
}

const openFrom = (url: string, localAddress: string): Socket => {
  const { hostname, port } = new URL(url);
  // Linux routes all of 127/8 to loopback: a client bound to 127.0.0.2 is another address.
  return connect({ host: hostname, port: Number(port), localAddress });
};

/**
 * Writes `text` from `localAddress` (then `trickle` every `everyMs`, as a slow client does) and
 * waits for the server to close the connection; bounded at 10 s so that a listener without the
 * policy fails the test instead of hanging it.
 */
export function exchange(url: string, localAddress: string, text: string, slow?: { trickle: string; everyMs: number }): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = openFrom(url, localAddress);
    let received = '';
    let started = 0;
    const trickling = slow && setInterval(() => socket.writable && socket.write(slow.trickle), slow.everyMs);
    const limit = setTimeout(() => socket.destroy(new Error(`still open after 10 s; received ${JSON.stringify(received)}`)), 10_000);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('connect', () => {
      started = performance.now();
      socket.write(text);
    });
    socket.on('error', (error) => {
      // A refusal closes at once; a reset after the answer was read is still that answer.
      if (received === '') reject(error);
    });
    socket.on('close', () => {
      clearInterval(trickling);
      clearTimeout(limit);
      resolve({ text: received, closedAfterMs: Math.round(performance.now() - started) });
    });
  });
}

/** A connection from `localAddress` that has sent half a request line and then nothing: held open. */
export function hold(url: string, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = openFrom(url, localAddress);
    socket.on('error', reject);
    socket.on('connect', () => {
      socket.write('GET /healthz HTTP/1.1\r\n');
      resolve(socket);
    });
  });
}

/**
 * A connection from `localAddress` that sends nothing and never closes its side, even after the
 * server has sent its FIN (allowHalfOpen): a client ignoring the server's close.
 */
export function holdSilently(url: string, localAddress: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress, allowHalfOpen: true });
    socket.on('error', reject);
    socket.on('connect', () => resolve(socket));
  });
}

/**
 * A connection from `localAddress` that sends `request` `times` over (pipelined) and never reads
 * an answer nor closes: once the kernel's buffers are full, no byte moves either way.
 */
export function stallUnread(url: string, localAddress: string, request: string, times: number): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), localAddress, allowHalfOpen: true });
    socket.pause();
    socket.on('error', () => {});
    socket.once('error', reject);
    socket.on('connect', () => {
      socket.write(request.repeat(times));
      resolve(socket);
    });
  });
}
