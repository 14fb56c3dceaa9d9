import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Tracing } from '../../src/telemetry/start-tracing.ts';
import { backends } from '../helpers/backends.ts';
import { registerClient } from '../helpers/oauth.ts';
import { type OtlpReceiver, startOtlpReceiver, traceThisProcessTo } from '../helpers/otlp-receiver.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

/** A POST whose body arrives `delayMs` after its headers, in a packet of its own; resolves with the status line. */
function slowBodyPost(url: string, path: string, headers: Record<string, string>, body: string, delayMs: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const head = Object.entries({ host: `${hostname}:${port}`, 'content-length': String(Buffer.byteLength(body)), connection: 'close', ...headers })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
      setTimeout(() => socket.write(body), delayMs);
    });
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('end', () => resolve(answer.split('\r\n')[0]!));
    socket.on('error', reject);
  });
}

/**
 * A body arriving after its headers is read by listeners Node calls in the connection's context,
 * not the request's (server-spans.ts binds no emitter): the handler must still run in the
 * request's trace (fastify runs a body's parser in the request's context), or the token
 * endpoint's steps and queries would become traces of their own.
 */
describe("Tracing: a request's body arriving late keeps its handler in the request's trace", () => {
  let receiver: OtlpReceiver;
  let tracing: Tracing | undefined;
  before(async () => {
    receiver = await startOtlpReceiver();
    tracing = await traceThisProcessTo(receiver, 'tessera-service');
  });
  after(async () => {
    await tracing?.shutdown();
    await receiver.close();
  });

  for (const backend of backends()) {
    describe(`on ${backend.name}`, () => {
      let t: TestService;
      before(async () => {
        t = await startTestService(backend);
      });
      after(() => t.close());

      it('the token endpoint steps and queries are children of its request span when the form comes 150 ms after the headers', async () => {
        const client = await registerClient(t, await t.org());
        const traceId = randomBytes(16).toString('hex');
        const basic = Buffer.from(`${client.id}:${client.secret}`).toString('base64');
        const status = await slowBodyPost(
          t.url,
          '/oauth2/tokens',
          {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${basic}`,
            traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
          },
          'grant_type=client_credentials',
          150,
        );
        assert.equal(status, 'HTTP/1.1 200 OK');
        const spans = await receiver.waitFor((all) => all.some((s) => s.traceId === traceId && s.name === 'POST /oauth2/tokens'), 'the request span');
        const request = spans.find((s) => s.traceId === traceId && s.name === 'POST /oauth2/tokens')!;
        await receiver.waitFor((all) => all.some((s) => s.name === 'token: token.client_credentials' && s.traceId === traceId), 'the grant step in the trace');
        const steps = spans.filter((s) => s.traceId === traceId && s.name.startsWith('token: '));
        assert.deepEqual(steps.map((s) => s.name).sort(), [
          'token: authenticate client',
          'token: check grant allowed',
          'token: parse',
          'token: token.client_credentials',
        ]);
        assert.ok(steps.every((s) => s.parentSpanId === request.spanId));
      });
    });
  }
});
