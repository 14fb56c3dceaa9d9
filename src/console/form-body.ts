import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.ts';
import { FormEncodingError, formPairs } from '../http/form-urlencoded.ts';

/** A posted form: each field's value, or its values for a field that is a list (checkboxes). */
export type FormBody = Record<string, string | string[]>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The console's own script posts JSON to this route (the WebAuthn ceremonies); every other console POST is a form. */
    consoleBody?: 'json';
  }
}

/**
 * No console form has more than 20 fields (the organisation settings with its token); the bound
 * keeps a crafted body of 30,000 empty fields from costing anything but its bytes.
 */
export const MAX_FORM_FIELDS = 64;

/** The fields that are checkbox lists; any other field sent twice is a form the console did not make. */
const LIST_FIELDS: ReadonlySet<string> = new Set(['roles', 'grant_types']);

const refused = (rule: string) => new ApiError('MALFORMED_REQUEST', `form: ${rule}`);

/**
 * application/x-www-form-urlencoded, for the console's pages only (the API stays JSON-only).
 * Linear in the body: each value is appended once, never copied with the list it joins. The
 * service's body limit applies: the settings form re-posts the whole organisation config.
 */
export function parseForm(body: string): FormBody {
  const form: Record<string, string | string[]> = Object.create(null);
  let count = 0;
  for (const [name, value] of formPairsOrRefused(body)) {
    if (++count > MAX_FORM_FIELDS) throw refused(`has more than ${MAX_FORM_FIELDS} fields`);
    const seen = form[name];
    if (seen === undefined) form[name] = LIST_FIELDS.has(name) ? [value] : value;
    else if (Array.isArray(seen)) seen.push(value);
    else throw refused(`field ${JSON.stringify(name.slice(0, 64))} is sent more than once (only ${[...LIST_FIELDS].join(' and ')} may repeat)`);
  }
  return form;
}

function* formPairsOrRefused(body: string): Generator<[string, string]> {
  try {
    yield* formPairs(body);
  } catch (error) {
    throw error instanceof FormEncodingError ? refused(error.rule) : error;
  }
}

export function acceptForms(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseForm(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/**
 * Each console POST reads one kind of body: a form, or JSON from the console's script. A JSON
 * body at a form route would be read field by field as absent values (`"console": true` would
 * read as the box left unticked), so it is refused before the route sees it.
 */
export function checkBodyKind(request: FastifyRequest): void {
  if (request.body === undefined) return;
  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== wantedBodyKind(request)) throw wrongBodyKind(request);
}

/** The 415 of a console route, naming the one body kind it takes (fastify's own names the API's JSON). */
export function wrongBodyKind(request: FastifyRequest): ApiError {
  return new ApiError('UNSUPPORTED_MEDIA_TYPE', `header Content-Type: must be ${wantedBodyKind(request)} for ${request.method} ${request.routeOptions.url}`);
}

function wantedBodyKind(request: FastifyRequest): string {
  return request.routeOptions.config.consoleBody === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
}

/** One field's text ('' when absent). */
export function field(form: unknown, name: string): string {
  const value = (form as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** Every text value of a list field (checkboxes). */
export function fields(form: unknown, name: string): string[] {
  const value = (form as Record<string, unknown> | undefined)?.[name];
  return (Array.isArray(value) ? value : [value]).filter((one): one is string => typeof one === 'string');
}

/** The route option of the routes the console's script posts JSON to. */
export const SCRIPT_JSON = Object.freeze({ consoleBody: 'json' as const });
