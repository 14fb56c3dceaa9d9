import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';

const PROBE = fileURLToPath(new URL('./fixtures/service-probe.ts', import.meta.url));
const SDK_PACKAGES = ['context-async-hooks', 'core', 'exporter-trace-otlp-proto', 'resources', 'sdk-trace'];

/** The service started in a process of its own under `env` (nothing else of ours inherited): its answer's status and the OpenTelemetry packages it loaded. */
async function probe(env: Record<string, string>): Promise<{ status: number; loaded: string[] }> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_') && !name.startsWith('TESSERA_')));
  const { stdout } = await promisify(execFile)(process.execPath, ['--disable-warning=ExperimentalWarning', PROBE], { env: { ...inherited, ...env } });
  return JSON.parse(stdout.trim().split('\n').at(-1)!);
}

describe('The OpenTelemetry SDK is loaded only when an OTLP endpoint is set (issue 28 §2)', () => {
  let receiver: OtlpReceiver;
  before(async () => {
    receiver = await startOtlpReceiver();
  });
  after(() => receiver.close());

  it('without OTEL_EXPORTER_OTLP_ENDPOINT: only the API (which prom-client loads anyway), no SDK, no exporter', async () => {
    const { status, loaded } = await probe({ PROBE_TRACEPARENT: `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01` });
    assert.equal(status, 200);
    assert.deepEqual(loaded, ['api']);
    assert.equal(receiver.exports.length, 0);
  });

  it('with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none beside an endpoint: still no SDK', async () => {
    for (const off of [{ OTEL_SDK_DISABLED: 'true' }, { OTEL_TRACES_EXPORTER: 'none' }] as Record<string, string>[]) {
      const { loaded } = await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...off });
      assert.deepEqual(loaded, ['api'], JSON.stringify(off));
    }
    assert.equal(receiver.exports.length, 0);
  });

  it('with the endpoint alone: the SDK and the default http/protobuf exporter, and the caller trace reaches the receiver as protobuf', async () => {
    const traceId = randomBytes(16).toString('hex');
    const { status, loaded } = await probe({
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      PROBE_TRACEPARENT: `00-${traceId}-${randomBytes(8).toString('hex')}-01`,
    });
    assert.equal(status, 200);
    for (const name of SDK_PACKAGES) assert.ok(loaded.includes(name), `${name} loaded: ${loaded.join(', ')}`);
    assert.ok(!loaded.includes('exporter-trace-otlp-http') && !loaded.includes('exporter-trace-otlp-grpc'), 'only the protocol asked for is loaded');
    const exported = receiver.exports.find((e) => e.body.includes(Buffer.from(traceId, 'hex')));
    assert.ok(exported, 'an export holds the caller trace id');
    assert.equal(exported.path, '/v1/traces');
    assert.equal(exported.contentType, 'application/x-protobuf');
    assert.ok(exported.body.includes('GET /healthz'), 'the request span, named by its route');
  });
});
