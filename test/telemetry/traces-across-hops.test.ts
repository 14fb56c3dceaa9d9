import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createPerson, mintPersonToken, registerClient } from '../helpers/oauth.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';
import { freshDatabase, type GatewayProcess, postgresServerUrl, type Replica, startGatewayProcess, startReplica } from '../helpers/replicas.ts';
import type { TestOrg } from '../helpers/service.ts';

const SERVER = 2;
const CLIENT = 3;

/** The databases a trace's queries are followed on: a SQLite file always, PostgreSQL when the suite has one. */
function databases(): { name: string; open(): Promise<{ url: string; drop(): Promise<void> }> }[] {
  const server = postgresServerUrl();
  const sqlite = {
    name: 'sqlite',
    async open() {
      const directory = mkdtempSync(join(tmpdir(), 'tessera-traces-'));
      return { url: `sqlite:${join(directory, 'tessera.db')}`, drop: async () => rmSync(directory, { recursive: true, force: true }) };
    },
  };
  return server ? [sqlite, { name: 'postgresql', open: () => freshDatabase(server) }] : [sqlite];
}

/** A port nothing listens on now, for a listener that must be given a number. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const hex = (bytes: number) => randomBytes(bytes).toString('hex');
const childOf = (spans: ReceivedSpan[], parent: ReceivedSpan, name: string | RegExp) =>
  spans.find((s) => s.parentSpanId === parent.spanId && (typeof name === 'string' ? s.name === name : name.test(s.name)));

for (const database of databases()) {
  describe(`Traces on ${database.name}: the caller's trace continues through the gateway, the token endpoint and the upstream (issue 28 §2)`, () => {
    let receiver: OtlpReceiver;
    let upstream: RecordingUpstream;
    let service: Replica;
    let gateway: GatewayProcess;
    let drop: () => Promise<void>;
    let personToken: string;
    let clientSecret: string;
    let org: TestOrg;

    before(async () => {
      receiver = await startOtlpReceiver();
      upstream = await startRecordingUpstream();
      const opened = await database.open();
      drop = opened.drop;
      // http/json so the receiver can read every span; a short batch delay so the test need not wait 5 s.
      const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' };
      service = await startReplica({ databaseUrl: opened.url, env: otel });
      org = await service.t.org();
      const client = await registerClient(service.t, org);
      clientSecret = client.secret;
      personToken = await mintPersonToken(service.t, org, await createPerson(service.t, org));
      gateway = await startGatewayProcess({
        serviceUrl: service.url,
        client,
        upstreamUrl: upstream.url,
        env: { ...otel, GATEWAY_LOG_LEVEL: 'debug', GATEWAY_FORWARD_AUTH_PORT: String(await freePort()) },
      });
    });
    after(async () => {
      await Promise.all([gateway?.kill('SIGKILL'), service?.kill('SIGKILL')]);
      await Promise.all([receiver?.close(), upstream?.close(), drop?.()]);
    });

    test('one trace id from the caller to the upstream, each hop the child of the one before, and both logs carrying it', async () => {
      const traceId = hex(16);
      const callerSpan = hex(8);
      const answer = await fetch(`${gateway.url}/orders/7?secret=q`, {
        headers: { authorization: `Bearer ${personToken}`, traceparent: `00-${traceId}-${callerSpan}-01` },
      });
      assert.equal(answer.status, 200, await answer.text());

      const spans = await receiver.waitFor(
        (all) =>
          ['tessera-gateway', 'tessera-service'].every((service) => all.some((s) => s.traceId === traceId && s.service === service && s.kind === SERVER)),
        'the gateway and the service spans of the trace',
      );
      const trace = spans.filter((s) => s.traceId === traceId);
      const describeTrace = trace.map((s) => `${s.service} ${s.name} ${s.spanId} <- ${s.parentSpanId}`).join('\n');

      // Hop 1: the gateway's request span continues the caller's, its plugin and exchange call below it.
      const request = trace.find((s) => s.service === 'tessera-gateway' && s.kind === SERVER);
      assert.ok(request, describeTrace);
      assert.equal(request.parentSpanId, callerSpan, 'the gateway continues the caller span');
      assert.equal(request.name, 'GET default_target');
      assert.equal(request.attributes['http.response.status_code'], 200);
      const plugin = childOf(trace, request, /^plugin /);
      assert.ok(plugin, describeTrace);
      assert.equal(plugin.attributes['tessera.token_cache'], 'miss');
      // The exchange, after the gateway's own actor token (client_credentials) when it had none cached yet.
      const calls = trace.filter((s) => s.parentSpanId === plugin.spanId && s.name === 'POST token endpoint');
      assert.ok(calls.every((c) => c.kind === CLIENT));
      const exchangeCall = calls.find((c) => c.attributes['tessera.grant'] === 'urn:ietf:params:oauth:grant-type:token-exchange');
      assert.ok(exchangeCall, describeTrace);

      // Hop 2: the token endpoint's request span is the child of the gateway's call, its steps and queries below.
      const endpoint = trace.find((s) => s.service === 'tessera-service' && s.parentSpanId === exchangeCall.spanId);
      assert.ok(endpoint, describeTrace);
      assert.equal(endpoint.kind, SERVER);
      assert.equal(endpoint.name, 'POST /oauth2/tokens');
      const steps = ['token: parse', 'token: authenticate client', 'token: check grant allowed', 'token: token.exchange'];
      for (const step of steps) assert.ok(childOf(trace, endpoint, step), `${step} under the endpoint:\n${describeTrace}`);
      const grant = childOf(trace, endpoint, 'token: token.exchange')!;
      for (const step of ['exchange: resolve subject', 'exchange: resolve actor', 'exchange: issue'])
        assert.ok(childOf(trace, grant, step), `${step} under the grant:\n${describeTrace}`);
      const system = database.name === 'sqlite' ? 'sqlite' : 'postgresql';
      const queries = trace.filter((s) => s.service === 'tessera-service' && s.attributes['db.system.name'] === system && s.kind === CLIENT);
      assert.ok(queries.length > 0, `database spans:\n${describeTrace}`);
      assert.ok(
        queries.some((q) => /\$1/.test(String(q.attributes['db.query.text']))),
        'statements as written, with placeholders',
      );

      // Hop 3: the upstream's traceparent names this trace, with the gateway's upstream call as parent.
      const received = upstream.requests.at(-1)!;
      const [version, upstreamTrace, parent, flags] = String(received.headers.traceparent).split('-');
      assert.deepEqual([version, upstreamTrace, flags], ['00', traceId, '01']);
      const forwardCall = trace.find((s) => s.spanId === parent);
      assert.ok(forwardCall, `the upstream's parent ${parent} is a span of the trace:\n${describeTrace}`);
      assert.equal(forwardCall.service, 'tessera-gateway');
      assert.equal(forwardCall.parentSpanId, request.spanId);
      assert.equal(forwardCall.kind, CLIENT);

      // Log lines of both processes carry the trace, so a log search finds what a trace shows.
      await receiver.waitFor(() => gateway.output().includes('"msg":"proxied"'), 'the gateway access log line', 5_000);
      assert.match(gateway.output(), new RegExp(`"trace_id":"${traceId}","span_id":"[0-9a-f]{16}"[^\\n]*"msg":"proxied"`));
      assert.match(service.output(), new RegExp(`"trace_id":"${traceId}","span_id":"[0-9a-f]{16}"[^\\n]*"msg":"request completed"`));
    });

    test("a caller's malformed or invalid traceparent starts a trace of the gateway's own, which the upstream gets instead", async () => {
      for (const garbage of [
        `00-${'0'.repeat(32)}-${hex(8)}-01`,
        `ff-${hex(16)}-${hex(8)}-01`,
        `00-${hex(16)}-${hex(8)}-01-extra`,
        `00-${hex(16).toUpperCase()}-${hex(8)}-01`,
        `${'a'.repeat(8000)}`,
      ]) {
        const before = upstream.requests.length;
        const answer = await fetch(`${gateway.url}/orders/8`, { headers: { authorization: `Bearer ${personToken}`, traceparent: garbage } });
        assert.equal(answer.status, 200, garbage.slice(0, 80));
        assert.equal(upstream.requests.length, before + 1);
        const sent = String(upstream.requests.at(-1)!.headers.traceparent);
        assert.match(sent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, garbage.slice(0, 80));
        assert.ok(!garbage.toLowerCase().includes(sent.split('-')[1]!), 'a new trace id, not the caller one');
      }
    });

    test("a forward-auth check continues the caller's trace and answers the check span's traceparent among the headers to write", async () => {
      const checks = /"forwardAuth":"(http:\/\/[^"]+)"/.exec(gateway.output())?.[1];
      assert.ok(checks, 'the gateway logged its forward-auth address');
      const traceId = hex(16);
      const callerSpan = hex(8);
      const answer = await fetch(`${checks}/_check`, {
        headers: {
          authorization: `Bearer ${personToken}`,
          'x-original-method': 'GET',
          'x-original-uri': '/orders/9',
          'x-forwarded-host': 'shop.example',
          traceparent: `00-${traceId}-${callerSpan}-01`,
        },
      });
      assert.equal(answer.status, 200);
      const [, answeredTrace, answeredSpan] = String(answer.headers.get('traceparent')).split('-');
      assert.equal(answeredTrace, traceId);
      const spans = await receiver.waitFor((all) => all.some((s) => s.traceId === traceId && s.kind === SERVER), 'the check span');
      const check = spans.find((s) => s.traceId === traceId && s.kind === SERVER)!;
      assert.equal(check.parentSpanId, callerSpan);
      assert.equal(check.spanId, answeredSpan);
      assert.equal(check.name, 'GET default_target');
    });

    test('no span carries a token, a secret, a query or a path: what a trace holds is safe to ship to a collector', async () => {
      // A subject of its own: a cached one would ask the service nothing, and the service hop must be in the trace.
      const subject = await mintPersonToken(service.t, org, await createPerson(service.t, org));
      const traceId = hex(16);
      const answer = await fetch(`${gateway.url}/orders/private-7f3a?secret=q`, {
        headers: { authorization: `Bearer ${subject}`, traceparent: `00-${traceId}-${hex(8)}-01` },
      });
      assert.equal(answer.status, 200);
      // Every hop of this call exported: the gateway's request span ends last on its side, the service's on its own.
      await receiver.waitFor(
        (all) =>
          ['tessera-gateway', 'tessera-service'].every((service) => all.some((s) => s.traceId === traceId && s.service === service && s.kind === SERVER)),
        'the spans of the call',
      );
      const exported = receiver.exports.map((e) => e.body.toString('utf8')).join('\n');
      const delegated = upstream.requests.at(-1)!.headers.authorization!.replace(/^Bearer /, '');
      for (const [what, secret] of [
        ['the person token of the first call', personToken],
        ['the person token of this call', subject],
        ['the delegated token', delegated],
        ['the client secret', clientSecret],
        ['the query string', 'secret=q'],
        ['the path', 'private-7f3a'],
      ] as const)
        assert.ok(!exported.includes(secret), `${what} is in an exported span`);
    });
  });
}
