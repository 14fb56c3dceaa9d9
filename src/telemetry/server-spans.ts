import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { tracingOn } from './spans.ts';

/** Methods named as themselves in span names; anything else a caller invents is `_OTHER` (semantic conventions). */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT']);

/**
 * A server span per request around `listener`, continuing the caller's `traceparent`, and the
 * active context for everything the listener's own call and promises do (fastify runs a
 * body's parser in the request's context itself). The request and response emitters are not
 * bound to it, as HTTP instrumentations do: that cost the gateway a third of its throughput in
 * our benchmark, for listeners that need no context. Without tracing, `listener` itself. The span carries the method and, once known, the route's pattern: never the path,
 * which may hold a secret (an invitation link's token) or whatever a hostile caller wrote.
 */
export function tracedRequests(listener: RequestListener): RequestListener {
  if (!tracingOn()) return listener;
  const tracer = trace.getTracer('tessera');
  return (request: IncomingMessage, response: ServerResponse) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const method = KNOWN_METHODS.has(request.method ?? '') ? request.method! : '_OTHER';
    const span = tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent);
    const active = trace.setSpan(parent, span);
    response.once('close', () => {
      // Before an answer was written, statusCode is Node's default 200: the caller left instead.
      if (!response.headersSent) span.setAttributes({ 'error.type': 'client_closed' });
      else {
        span.setAttribute('http.response.status_code', response.statusCode);
        if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    });
    context.with(active, () => listener(request, response));
  };
}

/** Names the active server span after the route that answers it (`POST /oauth2/tokens`). */
export function nameRequestSpan(method: string, route: string, attributes: Record<string, string> = {}): void {
  if (!tracingOn()) return;
  const span = trace.getActiveSpan();
  if (!span) return;
  span.updateName(`${KNOWN_METHODS.has(method) ? method : '_OTHER'} ${route}`);
  span.setAttributes({ 'http.route': route, ...attributes });
}
