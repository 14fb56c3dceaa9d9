import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError } from '../../../src/errors/api-error.ts';
import { apiErrorStatus } from '../../../src/errors/catalogue.ts';
import type { Backend } from '../../helpers/backends.ts';
import { createPerson } from '../../helpers/oauth.ts';
import { type Response, startTestService, type TestOrg, type TestService } from '../../helpers/service.ts';
import { holdsForbiddenKey } from '../forbidden-keys.ts';

/**
 * What the credential fuzz files share: the refusal every parser and endpoint must give (a 400
 * INVALID_FIELD naming the field), a count of what a person holds to show nothing was written,
 * and mutations of valid inputs. fast-check picks the seed and prints it with the path on failure.
 */

/**
 * A pure call takes microseconds; this leaves room for a busy shared machine, while a regular
 * expression that backtracks exponentially (seconds on a 64-character input) still exceeds it.
 */
export const PURE_CALL_LIMIT_MS = 250;

/** Runs `call`, and fails when it took longer than a parser ever should (a hang shows as a slow run). */
export function timed<T>(call: () => T): T {
  const started = performance.now();
  try {
    return call();
  } finally {
    const elapsed = performance.now() - started;
    assert.ok(elapsed < PURE_CALL_LIMIT_MS, `took ${elapsed.toFixed(1)} ms`);
  }
}

/** `error` is the 400 INVALID_FIELD naming `field` (or a part of it); anything else is rethrown. */
export function assertFieldError(error: unknown, field: string): ApiError {
  if (!(error instanceof ApiError)) throw error;
  assert.equal(error.code, 'INVALID_FIELD', error.message);
  assert.equal(error.status, 400);
  assert.ok(names(error.message, field), `${error.message} should name ${field}`);
  return error;
}

/** The parse result, or the refusal naming `field`: never another exception. */
export function parsedOrRefused<T>(field: string, parse: () => T): { ok: true; value: T } | { ok: false; error: ApiError } {
  try {
    return { ok: true, value: timed(parse) };
  } catch (error) {
    return { ok: false, error: assertFieldError(error, field) };
  }
}

function names(message: string, field: string): boolean {
  return message.startsWith(`${field}: `) || message.startsWith(`${field}.`) || message.startsWith(`${field}[`);
}

/** A status every answer of the API may have: a catalogued code with its own status, never a 5xx. */
export function assertCatalogued(response: Response): void {
  assert.ok(response.status < 500, `a ${response.status}: ${JSON.stringify(response.body)}`);
  if (response.status < 400) return;
  assert.ok(Array.isArray(response.body?.errors), `an error envelope: ${JSON.stringify(response.body)}`);
  for (const error of response.body.errors) {
    assert.ok(Object.hasOwn(apiErrorStatus, error.code), `${error.code} is catalogued`);
    assert.equal(apiErrorStatus[error.code as keyof typeof apiErrorStatus], response.status);
    assert.equal(error.httpcode, response.status);
  }
}

/**
 * The API's refusal of a bad field: 400 INVALID_FIELD, every message naming `field`. When the
 * body `sent` holds a key the JSON parser refuses first, 400 MALFORMED_JSON instead.
 */
export function assertRefusedNaming(response: Response, field: string, sent?: unknown): void {
  assertCatalogued(response);
  assert.equal(response.status, 400, JSON.stringify(response.body));
  if (holdsForbiddenKey(sent))
    return void assert.deepEqual(
      response.body.errors.map((e: { code: string }) => e.code),
      ['MALFORMED_JSON'],
    );
  for (const error of response.body.errors) {
    assert.equal(error.code, 'INVALID_FIELD');
    assert.ok(names(error.message, field), `${error.message} should name ${field}`);
  }
}

/**
 * Runs of an HTTP-level property on `backend`: PostgreSQL repeats on the other store what SQLite
 * ran (what differs is storage, e.g. which text it can hold), so half as many keep the files
 * within the suite's time on a shared two-core machine.
 */
export function httpRuns(backend: Backend, runs: number): number {
  return backend.name === 'postgres' ? Math.ceil(runs / 2) : runs;
}

export interface FuzzTarget {
  t: TestService;
  org: TestOrg;
  personId: string;
}

/** The real service over a fresh database, an organisation and a person to give credentials to. */
export async function fuzzTarget(backend: Backend): Promise<FuzzTarget> {
  const t = await startTestService(backend);
  const org = await t.org();
  return { t, org, personId: await createPerson(t, org) };
}

/** Deletes the person's password, so that the next import is not refused for holding one (a person holds one). */
export async function dropPassword({ t, org, personId }: FuzzTarget): Promise<void> {
  const listed = await t.call('GET', `/persons/${personId}/credentials?limit=100`, { as: org });
  for (const credential of listed.body.result as { id: string; type: string }[]) {
    if (credential.type === 'password') assert.equal((await t.call('DELETE', `/persons/${personId}/credentials/${credential.id}`, { as: org })).status, 204);
  }
}

/** How many credentials the person has: what a refusal must leave as it was. */
export async function credentialCount({ t, org, personId }: FuzzTarget): Promise<number> {
  const response = await t.call('GET', `/persons/${personId}/credentials?limit=1`, { as: org });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  return response.body.meta.cursor_pagination.total_count;
}

/** Characters that matter to the formats fuzzed here, beside arbitrary ones. */
const SIGNIFICANT = fc.constantFrom('$', '=', ',', '/', '+', '.', ':', '%', '?', '&', '#', '0', '9', 'A', 'z', ' ', '\u0000', '\u00e9', '\ud800', '\u202e');
const PIECE = fc.oneof(SIGNIFICANT, fc.string({ maxLength: 4 }), fc.string({ unit: 'binary', maxLength: 4 }));

type StringEdit = (text: string) => string;

const stringEdit: fc.Arbitrary<StringEdit> = fc.oneof(
  fc.tuple(fc.nat(), PIECE).map(
    ([at, piece]): StringEdit =>
      (text) =>
        text.slice(0, at % (text.length + 1)) + piece + text.slice(at % (text.length + 1)),
  ),
  fc.tuple(fc.nat(), PIECE).map(
    ([at, piece]): StringEdit =>
      (text) =>
        text.slice(0, at % (text.length + 1)) + piece + text.slice((at % (text.length + 1)) + 1),
  ),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 12 })).map(
    ([at, length]): StringEdit =>
      (text) =>
        text.slice(0, at % (text.length + 1)) + text.slice((at % (text.length + 1)) + length),
  ),
  fc.nat().map(
    (at): StringEdit =>
      (text) =>
        text.slice(0, at % (text.length + 1)),
  ),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 12 })).map(
    ([at, length]): StringEdit =>
      (text) => {
        const from = at % (text.length + 1);
        return text.slice(0, from + length) + text.slice(from);
      },
  ),
  fc.nat().map(
    (at): StringEdit =>
      (text) => {
        const i = at % Math.max(text.length, 1);
        const char = text.charAt(i);
        const swapped = char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase();
        return text.slice(0, i) + swapped + text.slice(i + 1);
      },
  ),
);

/** `seed` with one to three edits (insert, replace, delete, cut, duplicate, change case); never `seed` itself. */
export function mutatedString(seed: string): fc.Arbitrary<string> {
  return fc
    .array(stringEdit, { minLength: 1, maxLength: 3 })
    .map((edits) => edits.reduce((text, edit) => edit(text), seed))
    .filter((text) => text !== seed);
}

type ByteEdit = (bytes: Uint8Array) => Uint8Array;
const splice = (bytes: Uint8Array, at: number, remove: number, insert: Uint8Array = new Uint8Array()) =>
  Uint8Array.from([...bytes.subarray(0, at), ...insert, ...bytes.subarray(at + remove)]);

const byteEdit: fc.Arbitrary<ByteEdit> = fc.oneof(
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 7 })).map(
    ([at, bit]): ByteEdit =>
      (bytes) => {
        const copy = Uint8Array.from(bytes);
        if (copy.length > 0) copy[at % copy.length]! ^= 1 << bit;
        return copy;
      },
  ),
  fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(
    ([at, value]): ByteEdit =>
      (bytes) =>
        splice(bytes, at % (bytes.length + 1), 1, Uint8Array.of(value)),
  ),
  fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 4 })).map(
    ([at, insert]): ByteEdit =>
      (bytes) =>
        splice(bytes, at % (bytes.length + 1), 0, insert),
  ),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 8 })).map(
    ([at, remove]): ByteEdit =>
      (bytes) =>
        splice(bytes, at % (bytes.length + 1), remove),
  ),
  fc.nat().map(
    (at): ByteEdit =>
      (bytes) =>
        bytes.subarray(0, at % (bytes.length + 1)),
  ),
);

/**
 * One to three byte edits (bit flip, replace, insert, delete, cut) as a function, for bytes made
 * during a run (a fresh signature); when the edits happen to cancel out, the first bit is flipped,
 * so the result always differs.
 */
export const bytesEditor: fc.Arbitrary<(bytes: Uint8Array) => Uint8Array> = fc.array(byteEdit, { minLength: 1, maxLength: 3 }).map((edits) => (seed) => {
  const edited = edits.reduce((bytes, edit) => edit(bytes), seed);
  if (!Buffer.from(edited).equals(Buffer.from(seed))) return edited;
  return seed.length === 0 ? Uint8Array.of(0) : Uint8Array.from(seed, (byte, i) => (i === 0 ? byte ^ 1 : byte));
});

/** `seed` with one to three byte edits; never `seed` itself. */
export function mutatedBytes(seed: Uint8Array): fc.Arbitrary<Uint8Array> {
  return bytesEditor.map((edit) => edit(seed));
}
