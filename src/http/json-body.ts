import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error.ts';

/**
 * What a JSON body may hold before any schema looks at it. No body of the API or of SCIM nests
 * deeper than 6 levels nor needs more than a few thousand values (1,000 SPIFFE ids is the
 * largest list); a schema run with `allErrors` over 30,000 wrong values would build 30,000
 * messages, and recursive code meeting 10,000 levels fails with a 500.
 */
export const jsonBodyBounds = Object.freeze({ depth: 32, values: 10_000 });

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const malformed = (rule: string) => new ApiError('MALFORMED_JSON', `body: ${rule}`);

/**
 * The first bound the parsed value breaks, if any. Iterative and linear: every value is visited
 * once, and the walk stops at the first value past a bound.
 */
export function jsonBoundBroken(root: unknown, bounds = jsonBodyBounds): string | undefined {
  const pending: [unknown, number][] = [[root, 1]];
  let values = 0;
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (++values > bounds.values) return `holds more than ${bounds.values} values (objects, arrays, members and items count)`;
    if (value === null || typeof value !== 'object') continue;
    if (depth > bounds.depth) return `nests deeper than ${bounds.depth} levels`;
    for (const child of Array.isArray(value) ? value : Object.values(value)) pending.push([child, depth + 1]);
  }
  return undefined;
}

/**
 * The JSON parser of a scope (the API's application/json, SCIM's application/scim+json): the
 * bytes must be UTF-8 (RFC 8259 §8.1; a lenient decoder would turn a stray byte into U+FFFD and
 * store it), fastify's own parser refuses prototype keys, then the bounds above. An empty body
 * is no body.
 */
export function addJsonParser(app: FastifyInstance, contentType: string): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  const parse: FastifyBodyParser<Buffer> = (request, bytes, done) => {
    let text: string;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      return done(malformed('is not valid UTF-8'), undefined);
    }
    if (text === '') return done(null, undefined);
    parseJson(request, text, (error, value) => {
      if (error) return done(error, undefined);
      const broken = jsonBoundBroken(value);
      done(broken === undefined ? null : malformed(broken), broken === undefined ? value : undefined);
    });
  };
  app.addContentTypeParser(contentType, { parseAs: 'buffer' }, parse);
}
