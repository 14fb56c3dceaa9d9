import type { FastifyInstance } from 'fastify';

/** A posted form: each field's value, or its values when the name repeats (checkboxes). */
export type FormBody = Record<string, string | string[]>;

const FORM_LIMIT = 64 * 1024;

/** application/x-www-form-urlencoded, for the console's plugin only (the API stays JSON-only). */
export function acceptForms(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, body, done) => {
    const form: FormBody = Object.create(null);
    for (const [name, value] of new URLSearchParams(body as string)) {
      const seen = form[name];
      form[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
    }
    done(null, form);
  });
}

/** One field's text ('' when absent); a field sent twice is a form we did not make, read as its first value. */
export function field(form: unknown, name: string): string {
  const value = (form as FormBody | undefined)?.[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** Every value of a repeated field (checkboxes). */
export function fields(form: unknown, name: string): string[] {
  const value = (form as FormBody | undefined)?.[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
