/**
 * The standard OTEL_* variables that decide whether and how traces are sent
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/). Read
 * once at start-up with the rest of the configuration, so a bad value stops start-up with one
 * message naming the variable. Endpoint, headers, timeout, compression and certificates are
 * read by the OTLP exporter itself, from the same variables.
 */

export const PROTOCOLS = ['http/protobuf', 'http/json', 'grpc'] as const;
export type OtlpProtocol = (typeof PROTOCOLS)[number];

export const SAMPLERS = ['parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio', 'always_on', 'always_off', 'traceidratio'] as const;
export type SamplerName = (typeof SAMPLERS)[number];

export interface TracingSettings {
  protocol: OtlpProtocol;
  sampler: SamplerName;
  /** The ratio of the *traceidratio samplers (OTEL_TRACES_SAMPLER_ARG), 0 to 1. */
  ratio: number;
  /** OTEL_BSP_*: the batch span processor's queue and timing. */
  batch: { scheduledDelayMillis: number; maxQueueSize: number; maxExportBatchSize: number; exportTimeoutMillis: number };
}

type Env = Readonly<Record<string, string | undefined>>;

const BATCH_VARIABLES = {
  OTEL_BSP_SCHEDULE_DELAY: ['scheduledDelayMillis', 5000],
  OTEL_BSP_MAX_QUEUE_SIZE: ['maxQueueSize', 2048],
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: ['maxExportBatchSize', 512],
  OTEL_BSP_EXPORT_TIMEOUT: ['exportTimeoutMillis', 30000],
} as const;

const value = (env: Env, name: string): string | undefined => {
  const raw = env[name]?.trim();
  return raw === undefined || raw === '' ? undefined : raw;
};

/**
 * Tracing is on when an OTLP endpoint is named (OTEL_EXPORTER_OTLP_ENDPOINT or its traces
 * variable) and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none says otherwise;
 * then `settings`, else undefined. `problems` name each variable at fault and its rule.
 */
/** The traces variable of a setting when it is set (it wins, as the specification says), else the general one. */
const signalOrGeneral = (env: Env, setting: 'ENDPOINT' | 'PROTOCOL'): string =>
  value(env, `OTEL_EXPORTER_OTLP_TRACES_${setting}`) === undefined ? `OTEL_EXPORTER_OTLP_${setting}` : `OTEL_EXPORTER_OTLP_TRACES_${setting}`;

/** A variable at fault and the rule it breaks. */
export interface TracingProblem {
  variable: string;
  rule: string;
}

export function readTracingSettings(env: Env): { settings: TracingSettings | undefined; problems: TracingProblem[] } {
  const endpointVariable = signalOrGeneral(env, 'ENDPOINT');
  const endpoint = value(env, endpointVariable);
  const exporter = value(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase();
  // Off: the other OTEL_* variables may be set for other programs sharing the environment.
  if (endpoint === undefined || exporter === 'none' || value(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { settings: undefined, problems: [] };
  const problems: TracingProblem[] = [];
  // `collector:4318` parses as a URL of scheme collector: the scheme must be said.
  if (!/^https?:\/\//i.test(endpoint) || !URL.canParse(endpoint))
    problems.push({ variable: endpointVariable, rule: 'must be an http:// or https:// URL, e.g. http://collector:4318' });
  if (exporter !== undefined && exporter !== 'otlp') problems.push({ variable: 'OTEL_TRACES_EXPORTER', rule: 'must be otlp or none' });
  const protocolVariable = signalOrGeneral(env, 'PROTOCOL');
  const protocol = value(env, protocolVariable) ?? 'http/protobuf';
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) problems.push({ variable: protocolVariable, rule: `must be one of ${PROTOCOLS.join(', ')}` });
  const sampler = value(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on';
  if (!(SAMPLERS as readonly string[]).includes(sampler)) problems.push({ variable: 'OTEL_TRACES_SAMPLER', rule: `must be one of ${SAMPLERS.join(', ')}` });
  const ratioText = value(env, 'OTEL_TRACES_SAMPLER_ARG');
  const ratio = ratioText === undefined ? 1 : Number(ratioText);
  if (!(ratio >= 0 && ratio <= 1)) problems.push({ variable: 'OTEL_TRACES_SAMPLER_ARG', rule: 'must be a number from 0 to 1 (the share of traces sampled)' });
  const batch = {} as TracingSettings['batch'];
  for (const [name, [key, fallback]] of Object.entries(BATCH_VARIABLES)) {
    const text = value(env, name);
    const number = text === undefined ? fallback : Number(text);
    if (!Number.isSafeInteger(number) || number < 1) problems.push({ variable: name, rule: 'must be a whole number of at least 1' });
    batch[key] = number;
  }
  if (batch.maxExportBatchSize > batch.maxQueueSize)
    problems.push({ variable: 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', rule: 'must not exceed OTEL_BSP_MAX_QUEUE_SIZE' });
  if (problems.length > 0) return { settings: undefined, problems };
  return { settings: { protocol: protocol as OtlpProtocol, sampler: sampler as SamplerName, ratio, batch }, problems };
}
