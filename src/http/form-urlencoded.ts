/** A form body that is not what application/x-www-form-urlencoded allows; `rule` completes "form: …". */
export class FormEncodingError extends Error {
  readonly rule: string;
  constructor(rule: string) {
    super(`form: ${rule}`);
    this.name = 'FormEncodingError';
    this.rule = rule;
  }
}

/**
 * The name and value pairs of an application/x-www-form-urlencoded body, in order, decoded
 * strictly: URLSearchParams turns `%FF` (no UTF-8) or a stray `%` into U+FFFD or a literal and
 * goes on, and what it made was stored. Here either is a FormEncodingError. Lazy, so a caller
 * that stops at its bound decodes no further; the split itself is one linear pass.
 */
export function* formPairs(body: string): Generator<[name: string, value: string]> {
  // Raw bytes that were not UTF-8 reach here as U+FFFD (fastify decodes the body leniently);
  // a form's own characters are percent-encoded, so a raw one is never a browser's.
  if (body.includes('\uFFFD')) throw new FormEncodingError('is not valid UTF-8');
  for (const sequence of body.split('&')) {
    if (sequence === '') continue;
    const equals = sequence.indexOf('=');
    yield equals === -1 ? [decode(sequence), ''] : [decode(sequence.slice(0, equals)), decode(sequence.slice(equals + 1))];
  }
}

function decode(part: string): string {
  // Most values (a JWT, an opaque token, a client id) have nothing to decode: no copy, no scan by decodeURIComponent.
  if (!part.includes('%') && !part.includes('+')) return part;
  try {
    return decodeURIComponent(part.replaceAll('+', ' '));
  } catch {
    throw new FormEncodingError('has a percent-encoding that is not UTF-8 (each %XX a byte of a character, a % sign itself as %25)');
  }
}
