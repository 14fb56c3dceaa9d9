import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Readable, Transform } from 'node:stream';
import { type Dispatcher, errors as undiciErrors } from 'undici';
import { GatewayError } from '../request/gateway-error.ts';
import { type ForwardHeaders, returnableHeaders } from '../request/headers.ts';
import { tooLarge } from '../request/inbound.ts';

export interface ForwardTarget {
  dispatcher: Dispatcher;
  method: string;
  path: string;
  headers: ForwardHeaders;
  /** Past this many body bytes the upload is cut and answered 413; undefined: no limit. */
  maxBodyBytes?: number | undefined;
  /** A body that stalls this long between two chunks is cut and answered 408. */
  bodyTimeoutMs: number;
}

/**
 * The request body on its way upstream: counted against the limit (a declared length was
 * checked before), and cut when it stalls, so a client that opens an upload and goes quiet
 * does not hold an upstream connection for Node's 5-minute request timeout.
 */
function bodyOf(request: IncomingMessage, max: number | undefined, idleMs: number): Readable {
  let seen = 0;
  const stalled = new GatewayError('GATEWAY_BODY_TIMEOUT', `the request body stalled for longer than ${idleMs} ms (body_timeout)`, {
    headers: { connection: 'close' },
  });
  const body = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      idle.refresh();
      seen += chunk.length;
      done(max !== undefined && seen > max ? tooLarge(max) : null, chunk);
    },
    flush(done) {
      clearTimeout(idle);
      done();
    },
    destroy(error, done) {
      clearTimeout(idle);
      done(error);
    },
  });
  const idle = setTimeout(() => body.destroy(stalled), idleMs);
  return request.pipe(body);
}

/** nginx's code for a client that closed the connection before the answer: metrics count it so. */
const CLIENT_CLOSED_REQUEST = 499;

/** How a forwarded request ended: the upstream's status, or that the client left early. */
export interface ForwardOutcome {
  status: number;
  delivered: boolean;
}

/**
 * Sends the request upstream and writes the answer straight into `response` through
 * undici's dispatch handler: no intermediate stream pair per request, and backpressure
 * from a slow client pauses the upstream socket. Rejects with a GatewayError (502/504)
 * only while nothing has been written, so the caller can still answer; once the status
 * line is out, a failure can only cut the response short.
 */
export function forward(request: IncomingMessage, response: ServerResponse, target: ForwardTarget): Promise<ForwardOutcome> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let controller: Dispatcher.DispatchController | undefined;
    // A client that hangs up is routine (a load balancer's timeout, a closed tab): stop the
    // upstream exchange and free its connection rather than reading a body nobody wants.
    const onClientGone = () => {
      if (!response.writableFinished) controller?.abort(new undiciErrors.RequestAbortedError('the client went away'));
    };
    response.once('close', onClientGone);
    const resumeUpstream = () => controller?.resume();

    const hasBody = target.method !== 'GET' && target.method !== 'HEAD';
    target.dispatcher.dispatch(
      { method: target.method, path: target.path, headers: target.headers, body: hasBody ? bodyOf(request, target.maxBodyBytes, target.bodyTimeoutMs) : null },
      {
        onRequestStart(c) {
          controller = c;
          if (response.destroyed) c.abort(new undiciErrors.RequestAbortedError('the client went away'));
        },
        onResponseStart(c, statusCode, headers) {
          if (statusCode < 200) return; // 1xx: interim, the final answer follows
          status = statusCode;
          if (response.destroyed) return void c.abort(new undiciErrors.RequestAbortedError('the client went away'));
          response.writeHead(statusCode, returnableHeaders(headers));
        },
        onResponseData(c, chunk) {
          if (!response.write(chunk)) {
            c.pause();
            response.once('drain', resumeUpstream);
          }
        },
        onResponseEnd() {
          response.removeListener('close', onClientGone);
          response.end();
          resolve({ status, delivered: true });
        },
        onResponseError(_c, error) {
          response.removeListener('close', onClientGone);
          if (response.headersSent || response.destroyed) {
            response.destroy();
            return resolve({ status: status || CLIENT_CLOSED_REQUEST, delivered: false });
          }
          if (error instanceof GatewayError) return reject(error);
          if (error instanceof undiciErrors.HeadersTimeoutError)
            return reject(new GatewayError('GATEWAY_UPSTREAM_TIMEOUT', 'the upstream did not answer in time', { cause: error }));
          reject(new GatewayError('GATEWAY_UPSTREAM_UNREACHABLE', 'the upstream could not be reached', { cause: error }));
        },
      },
    );
  });
}
