/**
 * The RFC 3986 syntax a key URI is read with. Written out rather than left to URL or
 * URLSearchParams: those apply WHATWG URL and form rules (`+` read as a space, malformed
 * percent-encodings passed through, characters silently re-encoded), whereas spec §2.3 asks for
 * RFC 3986, and each part's failure has to be named.
 */

/** unreserved / reserved / `%` (RFC 3986 §2): anything else must arrive percent-encoded. */
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
/** A `%` not followed by two hexadecimal digits (RFC 3986 §2.1). */
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s;

export interface UriParts {
  /** Lower-cased: schemes are case-insensitive (RFC 3986 §3.1). */
  scheme: string;
  /** The text between `//` and the next `/`: the OTP type of a key URI. */
  authority: string;
  /** The path after the authority's `/`, still percent-encoded. */
  path: string;
  /** After `?`, still percent-encoded; undefined when there is no `?`. */
  query: string | undefined;
}

/** The rule the text breaks as an RFC 3986 URI with an authority, or its parts. */
export function splitUri(text: string): { problem: string } | { parts: UriParts } {
  if (!URI_CHARACTERS.test(text)) return { problem: 'must be a URI: spaces, non-ASCII and other characters outside RFC 3986 must be percent-encoded' };
  if (BAD_PERCENT.test(text)) return { problem: 'must be a URI: every "%" must start a percent-encoding of two hexadecimal digits' };
  if (text.includes('#')) return { problem: 'must be a URI without a fragment ("#")' };
  const scheme = SCHEME.exec(text);
  if (!scheme) return { problem: 'must be a URI: otpauth://totp/…' };
  const rest = scheme[2]!;
  if (!rest.startsWith('//')) return { problem: 'must be a URI: otpauth://totp/…' };
  const queryAt = rest.indexOf('?');
  const hierarchy = queryAt === -1 ? rest.slice(2) : rest.slice(2, queryAt);
  const slash = hierarchy.indexOf('/');
  return {
    parts: {
      scheme: scheme[1]!.toLowerCase(),
      authority: slash === -1 ? hierarchy : hierarchy.slice(0, slash),
      path: slash === -1 ? '' : hierarchy.slice(slash + 1),
      query: queryAt === -1 ? undefined : rest.slice(queryAt + 1),
    },
  };
}

/** Percent-decodes as UTF-8 (RFC 3986 §2.5); undefined when the bytes are not UTF-8. `+` stays `+`. */
export function percentDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

export interface QueryParameter {
  name: string;
  value: string;
}

/**
 * The `name=value` pairs of a query, decoded, in order; empty segments (`a=1&&b=2`) are skipped.
 * A pair without `=` has the empty value. Undefined when a name or value is not UTF-8.
 */
export function queryParameters(query: string): QueryParameter[] | undefined {
  const parameters: QueryParameter[] = [];
  for (const segment of query.split('&')) {
    if (segment === '') continue;
    const equals = segment.indexOf('=');
    const name = percentDecode(equals === -1 ? segment : segment.slice(0, equals));
    const value = percentDecode(equals === -1 ? '' : segment.slice(equals + 1));
    if (name === undefined || value === undefined) return undefined;
    parameters.push({ name, value });
  }
  return parameters;
}
