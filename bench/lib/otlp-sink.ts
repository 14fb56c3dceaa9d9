import { fileURLToPath } from 'node:url';
import { type BenchProcess, node, portEnv, startProcess } from './process.ts';

/** A process taking OTLP exports (bench/peers/otlp-sink.ts), and the variables that send a process's traces there. */
export async function startOtlpSink(): Promise<{ sink: BenchProcess; env: Record<string, string> }> {
  const sink = await startProcess(process.execPath, node(fileURLToPath(new URL('../peers/otlp-sink.ts', import.meta.url))), portEnv());
  // Every request sampled (no traceparent from the load generator: root spans, always on), the default protocol.
  return { sink, env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER: 'always_on' } };
}
