import { GatewayConfigError } from '../../settings/config-error.ts';
import { parseDuration } from '../../settings/duration.ts';

/** What a token-exchange parameter holds: a named kind, or one of a list of values. */
export type Kind =
  | 'url'
  | 'text'
  | 'header'
  | 'cookie'
  | 'boolean'
  | 'duration'
  | 'count'
  | 'list'
  | 'uri-list'
  | 'path'
  | 'env-var'
  | 'unix-socket'
  | readonly string[];

/** No `_`: the gateway drops such headers before plugins run (headers.ts). */
const HEADER = /^[!#$%&'*+.^`|~0-9A-Za-z-]{1,128}$/;
const COOKIE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;

/** Turns a raw value (a string from the environment, or a YAML/JSON value) into its kind. */
export function convert(raw: unknown, kind: Kind, name: string): unknown {
  if (raw === undefined) return undefined;
  const text = typeof raw === 'string' ? raw : typeof raw === 'number' || typeof raw === 'boolean' ? String(raw) : undefined;
  const fail = (rule: string): never => {
    throw new GatewayConfigError(name, rule);
  };
  if (kind === 'list' || kind === 'uri-list') {
    // Spread, so a hole (`_AUDIENCE_1` without `_AUDIENCE_0`) is an item of its own, refused below.
    const items = Array.isArray(raw) ? [...(raw as unknown[])] : fail('must be a list');
    return items.map((item, j) => {
      if (typeof item !== 'string' || item === '') return fail(`item ${j} must be a non-empty string`);
      if (kind === 'uri-list' && (!URL.canParse(item) || item.includes('#'))) return fail(`item ${j} must be an absolute URI without a fragment (RFC 8707)`);
      return item;
    });
  }
  if (text === undefined) return fail('must be a single value');
  if (Array.isArray(kind)) return kind.includes(text) ? text : fail(`must be one of ${kind.join(', ')}`);
  switch (kind) {
    case 'url': {
      const url = URL.canParse(text) ? new URL(text) : undefined;
      return url && (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash
        ? text
        : fail('must be an http(s) URL without query or fragment');
    }
    case 'header':
      return HEADER.test(text) ? text : fail('must be an HTTP header name without "_" (the gateway drops headers with "_")');
    case 'cookie':
      return COOKIE.test(text) ? text : fail('must be a cookie name');
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : fail('must be true or false');
    case 'duration':
      return parseDuration(text) ?? fail('must be a duration such as 500ms, 5s or 1m');
    case 'count':
      return /^[1-9][0-9]{0,9}$/.test(text) ? Number(text) : fail('must be a positive whole number');
    case 'env-var':
      return /^[A-Za-z_][A-Za-z0-9_]*$/.test(text) ? text : fail('must be an environment variable name');
    case 'unix-socket':
      return /^unix:\/\/?\/.+/.test(text) ? text : fail('must be a unix:// socket URI, e.g. unix:///run/spire/sockets/agent.sock');
    case 'path':
    case 'text':
      return text === '' ? fail('must not be empty') : text;
  }
}
