import type { FastifyInstance } from 'fastify';

/** A posted form: each field's value, or its values when the name repeats (checkboxes). */
export type FormBody = Record<string, string | string[]>;

/**
 * application/x-www-form-urlencoded, for the console's plugin only (the API stays JSON-only).
 * The service's body limit applies: the settings form re-posts the whole organisation config,
 * which the API lets grow to that size.
 */
export function acceptForms(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    const form: FormBody = Object.create(null);
    for (const [name, value] of new URLSearchParams(body as string)) {
      const seen = form[name];
      form[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
    }
    done(null, form);
  });
}

/**
 * One field's text ('' when absent); a field sent twice is a form we did not make, read as its
 * first value. A JSON body can reach a form route too: a value that is not text counts as absent,
 * so no handler ever meets a number or an object where a form has a string.
 */
export function field(form: unknown, name: string): string {
  const value = (form as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** Every text value of a repeated field (checkboxes). */
export function fields(form: unknown, name: string): string[] {
  const value = (form as Record<string, unknown> | undefined)?.[name];
  return (Array.isArray(value) ? value : [value]).filter((one): one is string => typeof one === 'string');
}
