import { type Attributes, context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';

/**
 * Spans through the OpenTelemetry API only: the SDK behind it is loaded by start-tracing.ts
 * when an OTLP endpoint is configured. Until then every helper here is a plain call of the
 * work it wraps, so a deployment without tracing runs exactly the code it ran before.
 */
let on = false;
let tracer: Tracer = trace.getTracer('tessera');

/** Called once by startTracing, after the SDK is registered as the API's global provider. */
export function markTracingStarted(): void {
  on = true;
  // The SDK's own tracer, not the API's proxy of it: a lookup less on every span.
  tracer = trace.getTracer('tessera');
}

export const tracingOn = (): boolean => on;

export { SpanKind };

/** Tessera's own span attributes, named once (the others are OpenTelemetry's semantic conventions). */
export const ATTRIBUTE = {
  /** The grant_type a token request asks for. */
  grant: 'tessera.grant',
  /** The kind of token an exchange issues: jwt or opaque. */
  tokenType: 'tessera.token_type',
  /** The gateway plugin a span runs. */
  plugin: 'tessera.plugin',
  /** The delegated-token cache's answer: hit, miss, or off. */
  tokenCache: 'tessera.token_cache',
} as const;

/** The semantic conventions' server.address and server.port of a URL a client span calls (its default port when none is written). */
export function serverOf(url: string): { 'server.address': string; 'server.port': number } {
  const { hostname, port, protocol } = new URL(url);
  return { 'server.address': hostname, 'server.port': Number(port) || (protocol === 'https:' ? 443 : 80) };
}

/**
 * Marks a span failed with the error's stable code (a GatewayError's, an OAuth error's) or its
 * class name. Never its message or stack: those may quote what a caller sent.
 */
export function markFailed(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  const type = typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown';
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/** Runs `work` in a child span of the active one, ended when its promise settles. */
export function inSpan<T>(name: string, attributes: Attributes, work: (span: Span | undefined) => Promise<T>, kind: SpanKind = SpanKind.INTERNAL): Promise<T> {
  if (!on) return work(undefined);
  return tracer.startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** inSpan for synchronous steps (parsing, a rule check). */
export function inSpanSync<T>(name: string, attributes: Attributes, work: () => T): T {
  if (!on) return work();
  return tracer.startActiveSpan(name, { attributes }, (span) => {
    try {
      return work();
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `work` outside any request's trace: background work (a token renewal's timer) started
 * from a request would otherwise inherit that request's context, and every later renewal, each
 * scheduled by the one before, would land in one long-ended trace.
 */
export function detached<T>(work: () => T): T {
  return on ? context.with(ROOT_CONTEXT, work) : work();
}

/** Sets attributes on the active span (a cache's outcome on its plugin's span). */
export function noteOnSpan(attributes: Attributes): void {
  if (on) trace.getActiveSpan()?.setAttributes(attributes);
}

/**
 * Writes the active span's context as `traceparent` (and `tracestate`) over whatever the caller
 * sent, so the next hop's spans are children of ours. Without tracing, headers are untouched.
 */
export function injectTraceContext(headers: Record<string, string | string[] | undefined>): void {
  if (!on) return;
  delete headers.traceparent;
  delete headers.tracestate;
  propagation.inject(context.active(), headers);
}

/** `headers` with the active span's trace context added (injectTraceContext for a literal). */
export function withTraceContext<H extends Record<string, string>>(headers: H): H {
  injectTraceContext(headers);
  return headers;
}

/** Set on a logger whose bindings already carry its request's trace (and on its children, by prototype). */
const BOUND = Symbol('trace fields bound');

/**
 * A request's own logger (fastify's childLoggerFactory), bound to the trace the request runs in:
 * its lines carry it wherever they are written from, even the access log line written on the
 * answer's `finish`, outside the request's context.
 */
export function traceBoundChild<L extends { child(bindings: object, options?: object): L }>(logger: L, bindings: object, options?: object): L {
  const child = logger.child({ ...bindings, ...traceFields() }, options);
  Object.defineProperty(child, BOUND, { value: true });
  return child;
}

/**
 * trace_id and span_id of the active span for a log line (a pino mixin, given the logger as its
 * third argument); nothing without tracing, or for a logger bound to its request's trace.
 */
export function traceFields(_line?: object, _level?: number, logger?: object): { trace_id?: string; span_id?: string } {
  if (!on || (logger as { [BOUND]?: boolean } | undefined)?.[BOUND]) return {};
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
