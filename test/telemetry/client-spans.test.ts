import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { realSchedule } from '../../src/concurrency/refresh-with-backoff.ts';
import { ScimPullClient } from '../../src/connections/scim-pull-client.ts';
import { smtpMailer } from '../../src/email/smtp-mailer.ts';
import { inSpan } from '../../src/telemetry/spans.ts';
import type { Tracing } from '../../src/telemetry/start-tracing.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver, traceThisProcessTo } from '../helpers/otlp-receiver.ts';
import { startSmtpListener } from '../helpers/smtp.ts';

const CLIENT = 3;

/**
 * The two calls the service makes outside a request's own database (design §8's SMTP sends and
 * SCIM pulls) are client spans under whatever asked for them. Tracing is started in this test's
 * own process (each test file has one), as `tessera service` starts it, over a real SMTP listener
 * and a real SCIM provider.
 */
describe('Client spans of the service: SMTP sends and SCIM pulls (issue 28 §2)', () => {
  let receiver: OtlpReceiver;
  let tracing: Tracing | undefined;
  before(async () => {
    receiver = await startOtlpReceiver();
    tracing = await traceThisProcessTo(receiver, 'client-spans-test');
  });
  after(async () => {
    await tracing?.shutdown();
    await receiver.close();
  });

  /** The one span named `name` under a parent span of this test's own, once exported. */
  async function childOfParent(parentName: string, name: string): Promise<ReceivedSpan> {
    const spans = await receiver.waitFor((all) => all.some((s) => s.name === parentName) && all.some((s) => s.name === name), `${parentName} and ${name}`);
    const parent = spans.find((s) => s.name === parentName)!;
    const child = spans.find((s) => s.name === name && s.parentSpanId === parent.spanId);
    assert.ok(child, `${name} under ${parentName}`);
    assert.equal(child.traceId, parent.traceId);
    assert.equal(child.kind, CLIENT);
    return child;
  }

  it('an SMTP send is a client span naming the server, under the request that sent it, without the address or the body', async () => {
    const listener = await startSmtpListener();
    const mailer = smtpMailer({ url: listener.url, from: 'verify@example.org', timeoutMs: 5_000, log: { info() {}, warn() {} } });
    try {
      await inSpan('sending request', {}, () =>
        mailer.send({ to: 'ada@example.com', subject: 'Your code', text: 'code 042917', html: '<b>042917</b>', fromName: 'Example', fromAddress: null }),
      );
      await listener.nextMessage();
      const send = await childOfParent('sending request', 'smtp send');
      assert.equal(send.attributes['server.address'], '127.0.0.1');
      const exported = receiver.exports.map((e) => e.body.toString('utf8')).join('');
      assert.ok(!exported.includes('ada@example.com') && !exported.includes('042917'), 'neither the recipient nor the code is exported');
    } finally {
      await mailer.close();
      await listener.close();
    }
  });

  it('a SCIM pull is a client span with the status, and the provider gets its trace context; the bearer token is not exported', async () => {
    let asked: IncomingHttpHeaders | undefined;
    const provider = createServer((request, response) => {
      asked = request.headers;
      response.writeHead(404, { 'content-type': 'application/scim+json' }).end('{}');
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(provider.address() as { port: number }).port}/scim/v2`;
      const client = new ScimPullClient({ timeoutMs: 2_000, allowLoopback: true });
      const found = await inSpan('verifying request', {}, () => client.lookup(base, 'pull-bearer-secret', { identityId: 'u1' }));
      assert.equal(found, undefined);
      const pull = await childOfParent('verifying request', 'GET scim directory');
      assert.equal(pull.attributes['http.response.status_code'], 404);
      assert.equal(asked?.traceparent, `00-${pull.traceId}-${pull.spanId}-01`);
      assert.ok(!receiver.exports.some((e) => e.body.includes('pull-bearer-secret')));
    } finally {
      provider.close();
    }
  });

  it("regression: a background renewal scheduled from a request runs in no request's trace (renewals chained into one caller's trace)", async () => {
    let renewed: () => void = () => {};
    const done = new Promise<void>((resolve) => (renewed = resolve));
    await inSpan('request that minted', {}, async () => {
      realSchedule(() => void inSpan('scheduled renewal', {}, async () => {}).then(renewed), 1);
    });
    await done;
    const spans = await receiver.waitFor((all) => ['request that minted', 'scheduled renewal'].every((name) => all.some((s) => s.name === name)), 'both spans');
    const request = spans.find((s) => s.name === 'request that minted')!;
    const renewal = spans.find((s) => s.name === 'scheduled renewal')!;
    assert.equal(renewal.parentSpanId, '', 'a root span');
    assert.notEqual(renewal.traceId, request.traceId);
  });
});
