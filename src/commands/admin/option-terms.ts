import type { ErrorObject } from 'ajv';
import type { TSchema } from 'typebox';
import { ApiError } from '../../errors/api-error.ts';
import { toErrorResponse } from '../../http/error-handler.ts';
import { describeValidationErrors, validatorCompiler } from '../../http/validation.ts';
import { InvalidArgumentError } from '../../organizations/create-organization.ts';
import { ConflictError } from '../../store/store.ts';
import { CommandRefusal } from '../command.ts';

// An admin command builds the API's request body from its options and hands it to the API's own
// rules (its schema, then the operation), so that the CLI accepts exactly what the API accepts.
// The rules name the body's fields (`body.grant_types`); these put the command's options in their
// place (`--grant-type`), so a message names what the person typed.

/**
 * How a command names an API field: the option that gives it, or `{ document }`, the option
 * naming a file whose JSON is the field (`--jwks-file`): a message then keeps the member inside
 * the file that is at fault (`keys[1].kty`), which the person must find there.
 */
export type FieldName = string | { readonly document: string };
/** API field → how the command names it: `{ 'body.client_name': '--name' }`. */
export type FieldNames = Readonly<Record<string, FieldName>>;

/**
 * The message with each field the names know replaced by its option. A field is matched with
 * whatever index or member follows it (`body.roles[1]` is `--role`) unless a longer name is
 * known for that (`body.handles[1]`, the second handle given); a document's option keeps them
 * (`body.jwks.keys[1].kty: must be…` is `--jwks-file: keys[1].kty must be…`).
 */
export function inOptionWords(message: string, names: FieldNames): string {
  const fields = Object.keys(names).sort((a, b) => b.length - a.length);
  if (fields.length === 0) return message;
  const escaped = fields.map((field) => field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`(${escaped.join('|')})((?:\\[\\d+\\]|\\.\\w+)*)(?![\\w[])(: )?`, 'g');
  return message.replace(pattern, (_, field: string, inside: string, colon = '') => {
    const name = names[field]!;
    if (typeof name === 'string') return `${name}${colon}`;
    const member = inside.replace(/^\./, '');
    return member === '' ? `${name.document}${colon}` : `${name.document}: ${member}${colon === '' ? '' : ' '}`;
  });
}

type Check = ((value: unknown) => boolean) & { errors?: ErrorObject[] | null };
const compiled = new WeakMap<TSchema, Check>();

/** Checks a body built from options against the API's schema for it; every problem at once, each naming its option (exit status 2). */
export function checkBody(schema: TSchema, body: unknown, names: FieldNames): void {
  let check = compiled.get(schema);
  if (!check) {
    check = validatorCompiler({ schema, method: 'POST', url: '/cli', httpPart: 'body' }) as Check;
    compiled.set(schema, check);
  }
  if (check(body)) return;
  throw new InvalidArgumentError(
    describeValidationErrors('body', check.errors ?? [])
      .map((message) => inOptionWords(message, names))
      .join('\n'),
  );
}

/**
 * A refusal of the API's rules as the command says it: bad input (the API's 400) is the
 * caller's mistake, exit status 2; a conflict or an unknown id (409, 404), exit status 1.
 * Anything else is returned as it is.
 */
export function inOptionTerms(error: unknown, names: FieldNames): unknown {
  if (!(error instanceof ApiError) && !(error instanceof ConflictError)) return error;
  const { errors } = toErrorResponse(error);
  const message = errors.map((e) => inOptionWords(e.message, names)).join('\n');
  return errors[0]?.code === 'INVALID_FIELD' ? new InvalidArgumentError(message) : new CommandRefusal(message);
}

/**
 * Runs `checks`, then `make`, each of which throws at its first problem (the schema, then an
 * operation's own rules), and refuses with every problem they found, so that one run names
 * them all; otherwise what `make` made.
 */
export function withEveryProblem<T>(names: FieldNames, checks: readonly (() => void)[], make: () => T): T {
  const problems: string[] = [];
  const attempt = <R>(step: () => R): R | undefined => {
    try {
      return step();
    } catch (error) {
      const refusal = inOptionTerms(error, names);
      if (!(refusal instanceof InvalidArgumentError)) throw refusal;
      problems.push(refusal.message);
      return undefined;
    }
  };
  for (const check of checks) attempt(check);
  const made = attempt(make);
  if (problems.length > 0 || made === undefined) throw new InvalidArgumentError([...new Set(problems)].join('\n'));
  return made;
}
