import { FormEncodingError, formPairs } from '../http/form-urlencoded.ts';
import { oauthError } from './errors.ts';

/** RFC 8693 §2.1 lets these repeat; every other parameter must appear at most once. */
const REPEATABLE = new Set(['audience', 'resource']);
const MAX_PARAMETERS = 32;
const MAX_VALUE_LENGTH = 16_384;

/** The parameters of a form-encoded OAuth request, duplicates refused (RFC 6749 §3.2). */
export class OAuthParams {
  readonly #values = new Map<string, string[]>();

  constructor(body: string) {
    const seen = new Set<string>();
    let count = 0;
    for (const [name, value] of strictPairs(body)) {
      if (++count > MAX_PARAMETERS) throw oauthError('invalid_request', `the request has more than ${MAX_PARAMETERS} parameters`);
      if (value.length > MAX_VALUE_LENGTH) throw oauthError('invalid_request', `parameter ${name} is longer than ${MAX_VALUE_LENGTH} characters`);
      // PostgreSQL cannot hold U+0000 in text: a client id or scope with it would fail there (500).
      if (name.includes('\u0000') || value.includes('\u0000'))
        throw oauthError('invalid_request', `parameter ${name} must not contain the NUL character (U+0000)`);
      // Checked before empty values are dropped: `a=&a=x` would otherwise let a proxy and this
      // server each read a different copy of the same parameter.
      if (seen.has(name) && !REPEATABLE.has(name)) throw oauthError('invalid_request', `parameter ${name} must not be repeated`);
      seen.add(name);
      // RFC 6749 §3.1: a parameter sent without a value is treated as omitted.
      if (value === '') continue;
      const values = this.#values.get(name) ?? [];
      values.push(value);
      this.#values.set(name, values);
    }
  }

  get(name: string): string | undefined {
    return this.#values.get(name)?.[0];
  }

  require(name: string): string {
    const value = this.get(name);
    if (value === undefined) throw oauthError('invalid_request', `parameter ${name} is required`);
    return value;
  }

  all(name: string): string[] {
    return this.#values.get(name) ?? [];
  }

  has(name: string): boolean {
    return this.#values.has(name);
  }
}

function* strictPairs(body: string): Generator<[string, string]> {
  try {
    yield* formPairs(body);
  } catch (error) {
    if (error instanceof FormEncodingError) throw oauthError('invalid_request', `the request body ${error.rule}`);
    throw error;
  }
}
