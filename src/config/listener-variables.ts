import type { ListenerPolicy } from '../runtime/listener-policy.ts';
import { listenerDefaults } from './defaults.ts';

/** The service port's listener policy as environment variables (part of serviceVariables, service-config.ts). */
export const listenerVariables = {
  TESSERA_HEADERS_TIMEOUT: { default: String(listenerDefaults.headersTimeoutMs), rule: 'milliseconds from 100 to 600000', pattern: '^[1-9][0-9]{2,5}$' },
  TESSERA_REQUEST_TIMEOUT: {
    default: String(listenerDefaults.requestTimeoutMs),
    rule: 'milliseconds from 100 to 3600000, at least TESSERA_HEADERS_TIMEOUT (unset: 30000 or TESSERA_HEADERS_TIMEOUT, the longer)',
    pattern: '^[1-9][0-9]{2,6}$',
  },
  TESSERA_KEEP_ALIVE_TIMEOUT: { default: String(listenerDefaults.keepAliveTimeoutMs), rule: 'milliseconds from 100 to 600000', pattern: '^[1-9][0-9]{2,5}$' },
  TESSERA_IDLE_TIMEOUT: {
    default: String(listenerDefaults.idleTimeoutMs),
    rule: 'milliseconds from 100 to 3600000, longer than TESSERA_SMTP_TIMEOUT',
    pattern: '^[1-9][0-9]{2,6}$',
  },
  TESSERA_MAX_REQUESTS_PER_CONNECTION: {
    default: String(listenerDefaults.maxRequestsPerConnection),
    rule: 'an integer from 1 to 100000',
    pattern: '^[1-9][0-9]{0,5}$',
  },
  TESSERA_MAX_CONNECTIONS: { default: String(listenerDefaults.maxConnections), rule: 'an integer from 1 to 1000000', pattern: '^[1-9][0-9]{0,6}$' },
  TESSERA_MAX_CONNECTIONS_PER_ADDRESS: {
    default: String(listenerDefaults.maxConnectionsPerAddress),
    rule: 'an integer from 1 to 1000000',
    pattern: '^[1-9][0-9]{0,6}$',
  },
} as const satisfies Record<string, { default: string; rule: string; pattern: string }>;

type ListenerVariable = keyof typeof listenerVariables;

/** The listener policy's variables: the upper bounds and the one rule between two of them. */
export function readListener(
  read: (name: ListenerVariable) => string | undefined,
  isSet: (name: ListenerVariable) => boolean,
): { listener: ListenerPolicy; listenerProblems: string[] } {
  const bounded = [
    ['TESSERA_HEADERS_TIMEOUT', 600_000],
    ['TESSERA_REQUEST_TIMEOUT', 3_600_000],
    ['TESSERA_KEEP_ALIVE_TIMEOUT', 600_000],
    ['TESSERA_IDLE_TIMEOUT', 3_600_000],
    ['TESSERA_MAX_REQUESTS_PER_CONNECTION', 100_000],
    ['TESSERA_MAX_CONNECTIONS', 1_000_000],
    ['TESSERA_MAX_CONNECTIONS_PER_ADDRESS', 1_000_000],
  ] as const;
  const problems = bounded.flatMap(([name, max]) => (Number(read(name)) > max ? [`${name}: must be ${listenerVariables[name].rule}`] : []));
  const listener: ListenerPolicy = {
    headersTimeoutMs: Number(read('TESSERA_HEADERS_TIMEOUT')),
    // Left unset, the request timeout follows a longer headers timeout rather than refusing it.
    requestTimeoutMs: isSet('TESSERA_REQUEST_TIMEOUT')
      ? Number(read('TESSERA_REQUEST_TIMEOUT'))
      : Math.max(Number(read('TESSERA_REQUEST_TIMEOUT')), Number(read('TESSERA_HEADERS_TIMEOUT'))),
    keepAliveTimeoutMs: Number(read('TESSERA_KEEP_ALIVE_TIMEOUT')),
    idleTimeoutMs: Number(read('TESSERA_IDLE_TIMEOUT')),
    maxRequestsPerConnection: Number(read('TESSERA_MAX_REQUESTS_PER_CONNECTION')),
    maxConnections: Number(read('TESSERA_MAX_CONNECTIONS')),
    maxConnectionsPerAddress: Number(read('TESSERA_MAX_CONNECTIONS_PER_ADDRESS')),
  };
  // Headers are part of the request: a request deadline before the headers' would hide it.
  if (listener.requestTimeoutMs < listener.headersTimeoutMs)
    problems.push(`TESSERA_REQUEST_TIMEOUT: must be ${listenerVariables.TESSERA_REQUEST_TIMEOUT.rule}`);
  return { listener, listenerProblems: problems };
}
