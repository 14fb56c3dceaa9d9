import { envKey, fileKey, type KeyNamer } from '../settings/config-error.ts';

import type { Tree } from './values.ts';

const isMap = (value: unknown): value is Tree => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A file's list as the environment writes it, `{N: item}`, so entries merge by their N. */
const byIndex = (value: unknown): unknown => (Array.isArray(value) && value.some(isMap) ? Object.fromEntries(value.map((item, n) => [n, item])) : value);

/**
 * The environment's tree laid over the file's: maps and numbered lists merge entry by entry,
 * and every value the environment gives (a list of strings, too: `_AUDIENCE_0`, `_1` …)
 * replaces the file's. The key namer names a value by where it came from, so an error says
 * `GATEWAY_PORT` for a variable and `plugins[0].parameters.scope` for a line of the file.
 */
export function mergeSources(file: Tree, env: Tree): { tree: Tree; key: KeyNamer } {
  const fromEnv = new Set<string>();
  const merge = (base: unknown, over: unknown, path: string[]): unknown => {
    // Only `urls` and `plugins` are numbered; a list elsewhere (parameters: […]) is a value the environment replaces.
    const left = path.length === 1 && (path[0] === 'urls' || path[0] === 'plugins') ? byIndex(base) : base;
    if (!isMap(over) || !isMap(left)) {
      fromEnv.add(path.join('.'));
      return over;
    }
    const out: Tree = { ...left };
    for (const [name, value] of Object.entries(over)) out[name] = name in left ? merge(left[name], value, [...path, name]) : mark(value, [...path, name]);
    return out;
  };
  // Everything under a key only the environment has came from the environment.
  const mark = (value: unknown, path: string[]): unknown => {
    fromEnv.add(path.join('.'));
    if (isMap(value)) for (const [name, item] of Object.entries(value)) mark(item, [...path, name]);
    return value;
  };
  const tree = merge(file, env, []) as Tree;
  // Below a key the environment gave (a required key missing there, too) everything is the environment's.
  const cameFromEnv = (path: readonly (string | number)[]) => path.some((_, i) => fromEnv.has(path.slice(0, i + 1).join('.')));
  return { tree, key: (path) => (cameFromEnv(path) ? envKey(path) : fileKey(path)) };
}
