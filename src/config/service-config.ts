import { isIP } from 'node:net';
import { Ajv } from 'ajv';
import type { ListenerPolicy } from '../runtime/listener-policy.ts';
import { parseWorkers, WORKERS_RULE } from '../runtime/run-workers.ts';
import { readTracingSettings, type TracingSettings } from '../telemetry/tracing-settings.ts';
import { isEmailAddress } from '../validation/email.ts';
import { defaultDatabaseUrl, sqliteFile } from './data-dir.ts';
import { DEFAULT_FAILURE_TIME_MS, FAILURE_TIME_RANGE_MS } from './defaults.ts';
import { listenerVariables, readListener } from './listener-variables.ts';

/**
 * Every environment variable the service reads, with its default and the rule it must meet.
 * docs/configuration.md documents each one (test/config/service-config.test.ts checks).
 */
export const serviceVariables = {
  TESSERA_PORT: { default: '8080', rule: 'an integer from 0 to 65535', pattern: '^(0|[1-9][0-9]{0,4})$' },
  TESSERA_HOST: { default: '127.0.0.1', rule: 'a host name or IP address to listen on (IPv6 without brackets)', pattern: '^[A-Za-z0-9.:-]{1,253}$' },
  // Its default depends on TESSERA_DATA_DIR (data-dir.ts), so it is computed, not written here.
  TESSERA_DATABASE: { default: undefined, rule: 'sqlite:PATH, sqlite::memory: or a postgres:// URL', pattern: '^(sqlite:.+|postgres(ql)?://.+)$' },
  TESSERA_DATA_DIR: { default: undefined, rule: 'a directory path', pattern: '^.{1,4096}$' },
  DATABASE_URL: { default: undefined, rule: 'a postgres:// or postgresql:// URL', pattern: '^postgres(ql)?://.+$' },
  TESSERA_ISSUER: { default: undefined, rule: 'an http(s) URL without query or fragment', pattern: '^https?://[^?#\\s]+$' },
  TESSERA_SECRET: { default: undefined, rule: 'at least 32 characters', pattern: '^.{32,}$' },
  TESSERA_DEV: { default: '0', rule: 'one of 1, 0, true, false', pattern: '^(1|0|true|false)$' },
  TESSERA_LOG_LEVEL: {
    default: 'info',
    rule: 'one of fatal, error, warn, info, debug, trace, silent',
    pattern: '^(fatal|error|warn|info|debug|trace|silent)$',
  },
  TESSERA_WORKERS: { default: '1', rule: WORKERS_RULE, pattern: '^(auto|[1-9][0-9]?)$' },
  TESSERA_BODY_LIMIT: { default: '65536', rule: 'a byte count from 1024 to 10485760', pattern: '^[0-9]{4,8}$' },
  TESSERA_DATABASE_POOL_SIZE: { default: '10', rule: 'an integer from 1 to 200', pattern: '^[1-9][0-9]{0,2}$' },
  TESSERA_TOKEN_PURGE_INTERVAL: { default: '600', rule: 'seconds from 1 to 86400', pattern: '^[1-9][0-9]{0,4}$' },
  TESSERA_TRUSTED_PROXIES: {
    default: undefined,
    rule: 'comma-separated IP addresses or CIDR ranges (e.g. 10.0.0.0/8,::1)',
    pattern: '^[0-9A-Fa-f.:/, ]{1,2048}$',
  },
  TESSERA_LOGINS_PER_SOURCE: { default: '4', rule: 'an integer from 0 (no bound) to 1000', pattern: '^(0|[1-9][0-9]{0,3})$' },
  TESSERA_LOGIN_FAILURE_TIME: { default: String(DEFAULT_FAILURE_TIME_MS), rule: 'milliseconds from 100 to 10000', pattern: '^[1-9][0-9]{2,4}$' },
  TESSERA_SMTP_URL: {
    default: undefined,
    rule: 'smtp://[user:password@]host[:port] or smtps://…, nothing after the port (percent-encode user and password)',
    pattern: '^smtps?://[^\\s]{1,2048}$',
  },
  TESSERA_SMTP_FROM: { default: undefined, rule: 'an email address', pattern: '^.{3,254}$' },
  TESSERA_SHUTDOWN_DELAY: { default: '0', rule: 'seconds from 0 to 300', pattern: '^(0|[1-9][0-9]{0,2})$' },
  TESSERA_SHUTDOWN_TIMEOUT: { default: '10', rule: 'seconds from 1 to 300', pattern: '^[1-9][0-9]{0,2}$' },
  TESSERA_SMTP_TIMEOUT: { default: '10000', rule: 'milliseconds from 100 to 120000', pattern: '^[1-9][0-9]{2,5}$' },
  ...listenerVariables,
} as const satisfies Record<string, { default: string | undefined; rule: string; pattern: string }>;

type VariableName = keyof typeof serviceVariables;

const validateEnvironment = new Ajv({ allErrors: true, strict: false }).compile({
  type: 'object',
  properties: Object.fromEntries(Object.entries(serviceVariables).map(([name, v]) => [name, { type: 'string', pattern: v.pattern }])),
});

export interface ServiceConfig {
  port: number;
  host: string;
  databaseUrl: string;
  /** Public base URL; when unset the service derives it from the address it binds. */
  issuer: string | undefined;
  secret: string;
  dev: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  bodyLimit: number;
  databasePoolSize: number;
  /** How often expired opaque tokens are deleted, in milliseconds. */
  tokenPurgeIntervalMs: number;
  /** Processes serving the one port (TESSERA_WORKERS), each with its own connections to the one database. */
  workers: number;
  /** Load balancers whose X-Forwarded-For names the client; none by default (the peer is the client). */
  trustedProxies: string[];
  /** Password logins in flight at once from one client address; 0 for no bound. */
  loginsPerSource: number;
  /** How long after it began a password failure is answered, in milliseconds (src/authn/failure-time.ts). */
  loginFailureTimeMs: number;
  /** Where email goes; undefined: the development transport (the service log). Holds the password: never log it. */
  smtpUrl: string | undefined;
  /** Envelope sender and default From address; required with smtpUrl. */
  smtpFrom: string | undefined;
  /** Bound on sending one email, in milliseconds. */
  smtpTimeoutMs: number;
  /** On SIGTERM: how long to serve on with /readyz failing, then how long requests in flight get. */
  shutdown: { delayMs: number; timeoutMs: number };
  /** Timeouts, keep-alive and connection caps of the service's port, per process (src/runtime/listener-policy.ts). */
  listener: ListenerPolicy;
  /** From the standard OTEL_* variables; undefined: no OTLP endpoint, no tracing (docs/operations.md). */
  tracing?: TracingSettings;
}

/** A configuration that cannot start; the message names every variable at fault. */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  constructor(problems: string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Fixed so that a development database stays readable across restarts; never for production.
 * The key ring tries it on a key it cannot open, to say that the database is a demo's.
 */
export const DEVELOPMENT_SECRET = 'tessera-development-secret-do-not-use-in-production';

export function loadServiceConfig(env: Record<string, string | undefined> = process.env): { config: ServiceConfig; warnings: string[] } {
  const values = Object.fromEntries(
    Object.keys(serviceVariables).flatMap((name) => (env[name] !== undefined && env[name] !== '' ? [[name, env[name]]] : [])),
  ) as Partial<Record<VariableName, string>>;
  const problems: string[] = [];
  if (!validateEnvironment(values)) {
    for (const error of validateEnvironment.errors ?? []) {
      const name = error.instancePath.slice(1) as VariableName;
      problems.push(`${name}: must be ${serviceVariables[name]?.rule ?? 'valid'}`);
    }
  }
  const read = (name: VariableName): string | undefined => values[name] ?? serviceVariables[name].default;
  const dev = read('TESSERA_DEV') === '1' || read('TESSERA_DEV') === 'true';
  const port = Number(read('TESSERA_PORT'));
  if (port > 65535) problems.push(`TESSERA_PORT: must be ${serviceVariables.TESSERA_PORT.rule}`);
  const bodyLimit = Number(read('TESSERA_BODY_LIMIT'));
  if (bodyLimit < 1024 || bodyLimit > 10_485_760) problems.push(`TESSERA_BODY_LIMIT: must be ${serviceVariables.TESSERA_BODY_LIMIT.rule}`);
  const poolSize = Number(read('TESSERA_DATABASE_POOL_SIZE'));
  if (poolSize > 200) problems.push(`TESSERA_DATABASE_POOL_SIZE: must be ${serviceVariables.TESSERA_DATABASE_POOL_SIZE.rule}`);
  const purgeSeconds = Number(read('TESSERA_TOKEN_PURGE_INTERVAL'));
  if (purgeSeconds > 86_400) problems.push(`TESSERA_TOKEN_PURGE_INTERVAL: must be ${serviceVariables.TESSERA_TOKEN_PURGE_INTERVAL.rule}`);
  const trustedProxies = (values.TESSERA_TRUSTED_PROXIES ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (!trustedProxies.every(isAddressOrRange)) problems.push(`TESSERA_TRUSTED_PROXIES: must be ${serviceVariables.TESSERA_TRUSTED_PROXIES.rule}`);
  const loginsPerSource = Number(read('TESSERA_LOGINS_PER_SOURCE'));
  if (loginsPerSource > 1000) problems.push(`TESSERA_LOGINS_PER_SOURCE: must be ${serviceVariables.TESSERA_LOGINS_PER_SOURCE.rule}`);
  const loginFailureTimeMs = Number(read('TESSERA_LOGIN_FAILURE_TIME'));
  if (loginFailureTimeMs < FAILURE_TIME_RANGE_MS.min || loginFailureTimeMs > FAILURE_TIME_RANGE_MS.max) {
    problems.push(`TESSERA_LOGIN_FAILURE_TIME: must be ${serviceVariables.TESSERA_LOGIN_FAILURE_TIME.rule}`);
  }
  problems.push(...smtpProblems(values));
  const workers = parseWorkers(read('TESSERA_WORKERS')!);
  if (workers === undefined) problems.push(`TESSERA_WORKERS: must be ${WORKERS_RULE}`);
  const databaseUrl = values.DATABASE_URL ?? absoluteSqlite(values.TESSERA_DATABASE ?? defaultDatabaseUrl(env));
  // Workers share nothing but the database: each would have a memory database of its own.
  if (workers !== undefined && workers > 1 && databaseUrl === 'sqlite::memory:') {
    problems.push('TESSERA_WORKERS: must be 1 with TESSERA_DATABASE=sqlite::memory: (each worker would have a database of its own); use a file or PostgreSQL');
  }
  const smtpTimeoutMs = Number(read('TESSERA_SMTP_TIMEOUT'));
  if (smtpTimeoutMs > 120_000) problems.push(`TESSERA_SMTP_TIMEOUT: must be ${serviceVariables.TESSERA_SMTP_TIMEOUT.rule}`);
  const shutdown = { delayMs: Number(read('TESSERA_SHUTDOWN_DELAY')) * 1000, timeoutMs: Number(read('TESSERA_SHUTDOWN_TIMEOUT')) * 1000 };
  for (const [name, ms] of [['TESSERA_SHUTDOWN_DELAY', shutdown.delayMs] as const, ['TESSERA_SHUTDOWN_TIMEOUT', shutdown.timeoutMs] as const]) {
    if (ms > 300_000) problems.push(`${name}: must be ${serviceVariables[name].rule}`);
  }
  const { listener, listenerProblems } = readListener(read, (name) => values[name] !== undefined);
  problems.push(...listenerProblems);
  // An email is sent before its answer starts: the connection must not be closed as idle meanwhile.
  if (listener.idleTimeoutMs <= smtpTimeoutMs) problems.push(`TESSERA_IDLE_TIMEOUT: must be ${serviceVariables.TESSERA_IDLE_TIMEOUT.rule}`);
  const tracing = readTracingSettings(env);
  problems.push(...tracing.problems.map(({ variable, rule }) => `${variable}: ${rule}`));
  const warnings: string[] = [];
  let secret = values.TESSERA_SECRET;
  if (!secret && !dev) problems.push('TESSERA_SECRET: is required (at least 32 characters) unless TESSERA_DEV=1');
  if (!secret && dev) {
    secret = DEVELOPMENT_SECRET;
    warnings.push('TESSERA_DEV=1 and no TESSERA_SECRET: using the fixed development secret. Never run production like this.');
  }
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);
  return {
    config: {
      port,
      host: read('TESSERA_HOST')!,
      databaseUrl,
      issuer: values.TESSERA_ISSUER?.replace(/\/+$/, ''),
      secret: secret!,
      dev,
      logLevel: read('TESSERA_LOG_LEVEL') as ServiceConfig['logLevel'],
      bodyLimit,
      databasePoolSize: poolSize,
      tokenPurgeIntervalMs: purgeSeconds * 1000,
      workers: workers!,
      trustedProxies,
      loginsPerSource,
      loginFailureTimeMs,
      smtpUrl: values.TESSERA_SMTP_URL,
      smtpFrom: values.TESSERA_SMTP_FROM,
      smtpTimeoutMs,
      shutdown,
      listener,
      ...(tracing.settings ? { tracing: tracing.settings } : {}),
    },
    warnings,
  };
}

/**
 * What the pattern cannot say about the SMTP variables. Messages never quote the URL: it
 * carries the SMTP password.
 */
function smtpProblems(values: Partial<Record<VariableName, string>>): string[] {
  const problems: string[] = [];
  const raw = values.TESSERA_SMTP_URL;
  if (raw !== undefined && /^smtps?:\/\//.test(raw)) {
    let url: URL | undefined;
    try {
      url = new URL(raw);
    } catch {}
    if (!url?.hostname || (url.pathname !== '' && url.pathname !== '/') || url.search || url.hash || /%(?![0-9A-Fa-f]{2})/.test(raw)) {
      problems.push(`TESSERA_SMTP_URL: must be ${serviceVariables.TESSERA_SMTP_URL.rule}`);
    }
    // The bounce address is needed by every mail server; guessing one would be refused or, worse, accepted.
    if (values.TESSERA_SMTP_FROM === undefined) problems.push('TESSERA_SMTP_FROM: is required when TESSERA_SMTP_URL is set');
  }
  if (values.TESSERA_SMTP_FROM !== undefined && !isEmailAddress(values.TESSERA_SMTP_FROM)) {
    problems.push(`TESSERA_SMTP_FROM: must be ${serviceVariables.TESSERA_SMTP_FROM.rule}`);
  }
  return problems;
}

/** An IP address, or one with a prefix length that fits it (10.0.0.0/8, fd00::/8). */
function isAddressOrRange(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * A relative `sqlite:PATH` is resolved once, against the directory the command started in,
 * so the path printed at start-up is the file actually opened.
 */
function absoluteSqlite(url: string): string {
  const file = sqliteFile(url);
  return file === undefined ? url : `sqlite:${file}`;
}
