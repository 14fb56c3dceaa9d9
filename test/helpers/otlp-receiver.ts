import { createServer } from 'node:http';
import { startTracing, type Tracing } from '../../src/telemetry/start-tracing.ts';
import { readTracingSettings } from '../../src/telemetry/tracing-settings.ts';

/** One span as an OTLP/HTTP JSON export carries it (ids in hex), with its resource's service.name. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** 2 when the span was marked failed. */
  statusCode: number;
}

/** An export as it arrived: its content type and bytes (a protobuf export is kept undecoded). */
export interface ReceivedExport {
  path: string;
  contentType: string;
  body: Buffer;
}

export interface OtlpReceiver {
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT names it (the exporter appends /v1/traces). */
  url: string;
  /** Every span of every JSON export so far. */
  spans: ReceivedSpan[];
  exports: ReceivedExport[];
  /** Resolves with the spans once `done` holds for them; rejects after `timeoutMs` naming what was awaited and what arrived. */
  waitFor(done: (spans: ReceivedSpan[]) => boolean, what: string, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type JsonValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type JsonAttribute = { key: string; value: JsonValue };
type JsonSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: JsonAttribute[];
  status?: { code?: number };
};
type JsonExport = { resourceSpans?: { resource?: { attributes?: JsonAttribute[] }; scopeSpans?: { spans?: JsonSpan[] }[] }[] };

const attributeValue = (value: JsonValue): string | number | boolean =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? ''));

const attributesOf = (list: JsonAttribute[] = []) => Object.fromEntries(list.map(({ key, value }) => [key, attributeValue(value)]));

/** A real OTLP/HTTP collector stand-in on 127.0.0.1:0: accepts JSON and protobuf trace exports and keeps them. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const receiver: OtlpReceiver = {
    url: '',
    spans: [],
    exports: [],
    async waitFor(done, what, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done(receiver.spans)) {
        if (Date.now() > deadline)
          throw new Error(
            `${what}: not received within ${timeoutMs} ms; spans so far:\n${receiver.spans.map((s) => `  ${s.service} ${s.name} ${s.spanId} <- ${s.parentSpanId}`).join('\n')}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return receiver.spans;
    },
    close: async () => {},
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = request.headers['content-type'] ?? '';
      receiver.exports.push({ path: request.url ?? '', contentType, body });
      if (contentType.startsWith('application/json')) {
        for (const resourceSpans of (JSON.parse(body.toString('utf8')) as JsonExport).resourceSpans ?? []) {
          const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
          for (const scope of resourceSpans.scopeSpans ?? [])
            for (const span of scope.spans ?? [])
              receiver.spans.push({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes),
                statusCode: span.status?.code ?? 0,
              });
        }
        return void response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }
      // An empty ExportTraceServiceResponse is zero bytes of protobuf.
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/**
 * Tracing started in this test's own process (each test file has one), as a command starts it,
 * exporting to `receiver` as JSON with a short batch delay. The exporter reads the OTEL_*
 * variables of the process, as in production, so they are set here.
 */
export async function traceThisProcessTo(receiver: OtlpReceiver, serviceName: string): Promise<Tracing> {
  Object.assign(process.env, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '50' });
  const tracing = await startTracing(readTracingSettings(process.env).settings, serviceName);
  if (!tracing) throw new Error('tracing did not start with an OTLP endpoint set');
  return tracing;
}
