import type { ErrorObject } from 'ajv';
import type { TSchema } from 'typebox';
import { toErrorResponse } from '../http/error-handler.ts';
import { describeValidationErrors, validatorCompiler } from '../http/validation.ts';

/** What a person can correct on the form itself: the form is shown again with these, and this status. */
export class FormRefusal extends Error {
  readonly status: number;
  readonly messages: string[];
  constructor(status: number, messages: string[]) {
    super(messages.join('; '));
    this.name = 'FormRefusal';
    this.status = status;
    this.messages = messages;
  }
}

type Check = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };
const compiled = new WeakMap<TSchema, Check>();

/** Checks a form's values against the API's own body schema, as the API would; 400 naming each field otherwise. */
export function checkBody(schema: TSchema, body: unknown, renames: Readonly<Record<string, string>> = {}): void {
  let check = compiled.get(schema);
  if (!check) {
    check = validatorCompiler({ schema, method: 'POST', url: '/console', httpPart: 'body' }) as Check;
    compiled.set(schema, check);
  }
  if (!check(body))
    throw new FormRefusal(
      400,
      describeValidationErrors('body', check.errors ?? []).map((m) => asFormMessage(m, renames)),
    );
}

/**
 * A refusal of the API's rules (400) or of a uniqueness rule (409) as the form shows it, naming
 * the form's fields; undefined for anything else, which is an error page.
 */
export function formRefusalOf(error: unknown, renames: Readonly<Record<string, string>> = {}): FormRefusal | undefined {
  if (error instanceof FormRefusal) return error;
  const response = toErrorResponse(error);
  if (response.status !== 400 && response.status !== 409) return undefined;
  return new FormRefusal(
    response.status,
    response.errors.map((e) => asFormMessage(e.message, renames)),
  );
}

/** The API names fields `body.x`; the console's forms name them `x` (or as `renames` says, for fields the form spells its own way). */
function asFormMessage(message: string, renames: Readonly<Record<string, string>>): string {
  const colon = message.indexOf(': ');
  if (colon === -1) return message;
  const field = message.slice(0, colon);
  const renamed = renames[field] ?? field.replace(/^body\./, '');
  return `${renamed}${message.slice(colon)}`;
}

/** The messages `check` refuses with (400), so that a form can show every problem at once; [] when it passes. */
export function problemsOf(check: () => void, renames: Readonly<Record<string, string>> = {}): string[] {
  try {
    check();
    return [];
  } catch (error) {
    const refusal = formRefusalOf(error, renames);
    if (refusal?.status !== 400) throw error;
    return refusal.messages;
  }
}
