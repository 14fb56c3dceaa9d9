/**
 * Compares what an example printed with the output its doc shows: the same JSON shape (keys,
 * recursively), the same codes, statuses and literal strings, and the same text lines, while
 * values that differ on every run (ids, tokens, secrets, times, cursors, key material) only
 * have to be of the same kind.
 */

export type OutputItem = { json: unknown } | { text: string };

/** The output split into JSON values (one per line or spread over several) and other lines. */
export function parseOutput(output: string): OutputItem[] {
  const items: OutputItem[] = [];
  let at = 0;
  while (at < output.length) {
    const char = output[at]!;
    if (char === '\n' || char === ' ' || char === '\r' || char === '\t') {
      at++;
      continue;
    }
    const end = char === '{' || char === '[' ? endOfJson(output, at) : undefined;
    if (end !== undefined) {
      try {
        items.push({ json: JSON.parse(output.slice(at, end)) });
        at = end;
        continue;
      } catch {
        // not JSON after all (a `[` in prose): read it as a line of text
      }
    }
    const lineEnd = output.indexOf('\n', at);
    const stop = lineEnd === -1 ? output.length : lineEnd;
    items.push({ text: output.slice(at, stop).trimEnd() });
    at = stop;
  }
  return items;
}

/** Where the JSON value starting at `start` ends, by bracket depth outside strings. */
function endOfJson(text: string, start: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (--depth === 0) return i + 1;
    }
  }
  return undefined;
}

/** The prefixes of the service's ids and secrets (src/crypto/ids.ts callers), new on every run. */
const PREFIXES = 'org|per|cli|key|evt|tat|tsk|tsi|tcs|crd|con|idn|tscim|evf';
const ID_PREFIX = new RegExp(`^(Bearer )?(${PREFIXES})_`);
/** Keys whose values are new on every run whatever they look like. */
const VOLATILE_KEYS = new Set(['kid', 'signing_key', 'jti', 'x', 'y', 'next_cursor', 'prev_cursor', 'last_cursor']);
/** Seconds since the epoch: only the type is compared. */
const TIME_KEYS = new Set(['exp', 'iat', 'nbf']);
/** Lifetimes counted down from a token minted earlier in the run: the doc's run took longer or shorter. */
const LIFETIME_SLACK = 15;

/** The kind of a value that differs per run, or undefined for a value that must match exactly. */
function volatileKind(value: string, key: string | undefined): string | undefined {
  if (key !== undefined && VOLATILE_KEYS.has(key)) return `any ${key}`;
  const id = ID_PREFIX.exec(value);
  if (id) return `${id[1] ?? ''}${id[2]}_…`;
  if (/^(Bearer )?eyJ/.test(value)) return 'a JWT';
  if (/\/console\/invitation\/[A-Za-z0-9_-]{43}$/.test(value)) return `an invitation link at ${value.slice(0, value.lastIndexOf('/'))}`;
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value)) return 'a time';
  return undefined;
}

/** The differences between the doc's output and the actual one, each naming where it is. */
export function compareOutput(expected: string, actual: string): string[] {
  const want = parseOutput(expected);
  const got = parseOutput(actual);
  const differences: string[] = [];
  for (let i = 0; i < Math.max(want.length, got.length); i++) {
    const w = want[i];
    const g = got[i];
    if (!w || !g) {
      differences.push(w ? `item ${i + 1}: missing, the doc shows ${show(w)}` : `item ${i + 1}: not in the doc: ${show(g!)}`);
    } else if ('json' in w && 'json' in g) compareValue(w.json, g.json, `item ${i + 1}`, undefined, differences);
    else if ('text' in w && 'text' in g) {
      if (normaliseLine(w.text) !== normaliseLine(g.text)) differences.push(`item ${i + 1}: the doc shows "${w.text}", got "${g.text}"`);
    } else differences.push(`item ${i + 1}: the doc shows ${show(w)}, got ${show(g)}`);
  }
  return differences;
}

function show(item: OutputItem): string {
  return 'json' in item ? `JSON ${JSON.stringify(item.json)}` : `the line "${item.text}"`;
}

function compareValue(want: unknown, got: unknown, path: string, key: string | undefined, out: string[]): void {
  if (typeof want === 'string' && typeof got === 'string') {
    const kind = volatileKind(want, key);
    if (kind !== undefined ? kind !== volatileKind(got, key) : want !== got)
      out.push(`${path}: the doc shows ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
    return;
  }
  if (typeof want === 'number' && typeof got === 'number') {
    const same = key !== undefined && TIME_KEYS.has(key) ? true : key === 'expires_in' ? Math.abs(want - got) <= LIFETIME_SLACK : want === got;
    if (!same) out.push(`${path}: the doc shows ${want}, got ${got}`);
    return;
  }
  if (Array.isArray(want) && Array.isArray(got)) {
    if (want.length !== got.length) out.push(`${path}: the doc shows ${want.length} items, got ${got.length}: ${JSON.stringify(got)}`);
    else
      want.forEach((w, i) => {
        compareValue(w, got[i], `${path}[${i}]`, key, out);
      });
    return;
  }
  if (isObject(want) && isObject(got)) {
    const missing = Object.keys(want).filter((k) => !(k in got));
    const extra = Object.keys(got).filter((k) => !(k in want));
    if (missing.length) out.push(`${path}: missing ${missing.join(', ')} (got ${JSON.stringify(got)})`);
    if (extra.length) out.push(`${path}: not in the doc: ${extra.map((k) => `${k}=${JSON.stringify(got[k])}`).join(', ')}`);
    for (const k of Object.keys(want)) if (k in got) compareValue(want[k], got[k], `${path}.${k}`, k, out);
    return;
  }
  if (want !== got) out.push(`${path}: the doc shows ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** HTTP headers whose values change with the run, the clock or the machine (a rate limit's Retry-After counts down). */
const VOLATILE_HEADERS = new Set(['date', 'last-modified', 'server', 'content-length', 'keep-alive', 'retry-after']);

/** A text line with its per-run parts (ids, tokens, key ids, volatile header values) reduced to their kind. */
export function normaliseLine(line: string): string {
  const header = /^([A-Za-z-]+): /.exec(line);
  if (header && VOLATILE_HEADERS.has(header[1]!.toLowerCase())) return `${header[1]!.toLowerCase()}: …`;
  return line
    .replace(new RegExp(`\\b(${PREFIXES})_[\\w…-]+`, 'g'), '$1_…')
    .replace(/\beyJ[\w.…-]+/g, 'eyJ…')
    .replace(/\/console\/invitation\/[A-Za-z0-9_-]{43}/g, '/console/invitation/…')
    .replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/\b[0-9a-z]{26}\b/g, '<key id>');
}
