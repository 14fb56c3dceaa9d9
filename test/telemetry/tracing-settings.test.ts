import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadServiceConfig } from '../../src/config/service-config.ts';
import { loadGatewaySetup } from '../../src/gateway/config/gateway-config.ts';
import { readTracingSettings } from '../../src/telemetry/tracing-settings.ts';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
const SERVICE = { TESSERA_DEV: '1', TESSERA_LOG_LEVEL: 'silent' };
const GATEWAY = { GATEWAY_DEFAULT_TARGET: 'http://127.0.0.1:9000' };

describe('Tracing settings: the standard OTEL_* variables, checked at start-up (issue 28 §2)', () => {
  it('is off without an endpoint, whatever else is set (other programs may share the environment)', () => {
    assert.deepEqual(readTracingSettings({ OTEL_TRACES_SAMPLER: 'sometimes', OTEL_SERVICE_NAME: 'x' }), { settings: undefined, problems: [] });
    assert.equal(loadServiceConfig({ ...SERVICE, OTEL_TRACES_SAMPLER: 'sometimes' }).config.tracing, undefined);
    assert.equal(loadGatewaySetup({ env: { ...GATEWAY, OTEL_TRACES_SAMPLER: 'sometimes' } }).tracing, undefined);
  });

  it('with an endpoint: http/protobuf, parent-based always-on and the batch defaults of the specification', () => {
    assert.deepEqual(readTracingSettings(ENDPOINT).settings, {
      protocol: 'http/protobuf',
      sampler: 'parentbased_always_on',
      ratio: 1,
      batch: { scheduledDelayMillis: 5000, maxQueueSize: 2048, maxExportBatchSize: 512, exportTimeoutMillis: 30000 },
    });
    const traced = readTracingSettings({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    }).settings;
    assert.equal(traced?.protocol, 'grpc', 'the traces variable wins over the general one');
    assert.equal(traced?.sampler, 'parentbased_traceidratio');
    assert.equal(traced?.ratio, 0.25);
    assert.equal(traced?.batch.scheduledDelayMillis, 200);
  });

  it('is off with an endpoint when OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none', () => {
    assert.equal(readTracingSettings({ ...ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' }).settings, undefined);
    assert.equal(readTracingSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }).settings, undefined);
  });

  for (const [variable, value, rule] of [
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318', /must be an http:\/\/ or https:\/\/ URL/],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'http', /must be one of http\/protobuf, http\/json, grpc/],
    ['OTEL_TRACES_EXPORTER', 'zipkin', /must be otlp or none/],
    ['OTEL_TRACES_SAMPLER', 'sometimes', /must be one of parentbased_always_on, .*traceidratio/],
    ['OTEL_TRACES_SAMPLER_ARG', '1.5', /must be a number from 0 to 1/],
    ['OTEL_BSP_MAX_QUEUE_SIZE', '0', /must be a whole number of at least 1/],
    ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE', '4096', /must not exceed OTEL_BSP_MAX_QUEUE_SIZE/],
  ] as const) {
    it(`stops the service and the gateway at start-up for ${variable}=${value}, naming the variable and its rule`, () => {
      const env = { ...ENDPOINT, [variable]: value };
      assert.throws(
        () => loadServiceConfig({ ...SERVICE, ...env }),
        (error: Error) => new RegExp(`${variable}: ${rule.source}`).test(error.message),
      );
      assert.throws(
        () => loadGatewaySetup({ env: { ...GATEWAY, ...env } }),
        (error: Error & { code?: string }) => error.code === 'GATEWAY_CONFIG_INVALID' && new RegExp(`^${variable}: ${rule.source}`).test(error.message),
      );
    });
  }
});
