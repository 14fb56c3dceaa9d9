import { GatewayConfigError } from '../settings/config-error.ts';

/** A configuration as read from the environment or a file, before it is validated. */
export type Tree = Record<string, unknown>;

/** Numbered entries: a file's list (N = position) or the environment's sparse map (N as given). */
export function numbered(value: unknown, name: string): [number, unknown][] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.map((item, n) => [n, item]);
  // A map only as the environment (or a file merged with it) numbers entries: N => item.
  if (typeof value === 'object' && value !== null && Object.keys(value).every((n) => /^\d+$/.test(n)))
    return Object.entries(value)
      .map(([n, item]) => [Number(n), item] as [number, unknown])
      .sort((a, b) => a[0] - b[0]);
  throw new GatewayConfigError(name, 'must be a list');
}

/** A setting of one value: a file's list or map, or an empty value, would otherwise be read as its text ("a,b", "null"). */
export function refuseNonScalar(value: unknown, name: string): void {
  if (typeof value === 'object') throw new GatewayConfigError(name, 'must be a single value, not empty, a list or a map');
}

export function objectAt(value: unknown, name: string): Tree {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new GatewayConfigError(name, 'must be a map');
  return value as Tree;
}

export function readPort(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!/^\d{1,5}$/.test(String(value)) || port > 65535) throw new GatewayConfigError(name, 'must be a port from 0 to 65535');
  return port;
}

export function readBoolean(value: unknown, fallback: boolean, name: string): boolean {
  if (value === undefined) return fallback;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new GatewayConfigError(name, 'must be true or false');
}

export function readUrl(value: unknown, name: string): string {
  const text = String(value ?? '');
  const url = URL.canParse(text) ? new URL(text) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw new GatewayConfigError(name, 'must be an http(s) URL');
  return text.replace(/\/+$/, '');
}
