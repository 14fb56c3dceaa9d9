import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { markTracingStarted } from './spans.ts';
import type { OtlpProtocol, SamplerName, TracingSettings } from './tracing-settings.ts';

export interface Tracing {
  /** Sends the spans still queued (bounded by OTEL_BSP_EXPORT_TIMEOUT) and stops. */
  shutdown(): Promise<void>;
}

/** The exporter of the protocol, which reads OTEL_EXPORTER_OTLP_* (endpoint, headers, timeout, TLS) itself. */
async function exporterFor(protocol: OtlpProtocol): Promise<SpanExporter> {
  if (protocol === 'grpc') return new (await import('@opentelemetry/exporter-trace-otlp-grpc')).OTLPTraceExporter();
  if (protocol === 'http/json') return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

async function samplerFor(name: SamplerName, ratio: number) {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = await import('@opentelemetry/sdk-trace');
  const root = name.endsWith('always_on') ? new AlwaysOnSampler() : name.endsWith('always_off') ? new AlwaysOffSampler() : new TraceIdRatioBasedSampler(ratio);
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/**
 * Loads the OpenTelemetry SDK and makes it the API's global tracer provider, with W3C trace
 * context propagation and an AsyncLocalStorage context manager; undefined settings (no OTLP
 * endpoint configured) load nothing. `serviceName` is the resource's service.name unless
 * OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES name another.
 */
export async function startTracing(settings: TracingSettings | undefined, serviceName: string): Promise<Tracing | undefined> {
  if (!settings) return undefined;
  const [api, sdk, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, resources] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
  ]);
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.TracerProvider({
    resource,
    sampler: await samplerFor(settings.sampler, settings.ratio),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter: await exporterFor(settings.protocol), ...settings.batch })],
  });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  markTracingStarted();
  return { shutdown: () => provider.shutdown() };
}
