import type { ForwardHeaders } from '../../request/headers.ts';

/** A token read from a header (a `Bearer ` scheme is taken off) or from one cookie. */
export interface TokenLocation {
  header?: string;
  cookie?: string;
}

/** What was found where a token should be: nothing, a token, or something that cannot be one. */
export type TokenReading = { kind: 'missing' } | { kind: 'token'; token: string } | { kind: 'malformed'; reason: string };

/** RFC 6750 §2.1 b64token: what a bearer token may be made of. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
/**
 * RFC 6750 §2.1: `Bearer`, spaces (or tabs), the token. Node trims header values, so `Bearer `
 * arrives as `Bearer`: a scheme with no token.
 */
const BEARER = /^Bearer(?:[ \t]+(.*))?$/is;

export function readToken(headers: ForwardHeaders, where: TokenLocation): TokenReading {
  let value: string | undefined;
  if (where.header) {
    const raw = headers[where.header.toLowerCase()];
    const text = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    const bearer = text ? BEARER.exec(text) : null;
    value = bearer ? bearer[1] : text;
  } else {
    value = cookies(headers).find(([name]) => name === where.cookie)?.[1];
  }
  if (!value) return { kind: 'missing' };
  // Refused here, without a call to the token endpoint: no token of any issuer looks like this.
  if (value.length > 16_384) return { kind: 'malformed', reason: 'is longer than 16384 characters' };
  if (!B64TOKEN.test(value)) return { kind: 'malformed', reason: 'is not a bearer token (RFC 6750 b64token: letters, digits, -._~+/ and trailing =)' };
  return { kind: 'token', token: value };
}

/** A cookie name as lenient parsers read it: ASP.NET ignores case, PHP decodes percent-encoding. */
function looseName(name: string): string {
  try {
    return decodeURIComponent(name).toLowerCase();
  } catch {
    return name.toLowerCase();
  }
}

/**
 * Removes the token: the whole header, or the cookie — and with it every cookie that some
 * upstream's parser could read as that cookie (another case, a percent-encoded name) or that
 * carries the token anyway (after a `,`, which old parsers take as a separator). Other
 * cookies are kept intact.
 */
export function stripToken(headers: ForwardHeaders, where: TokenLocation, token: string): void {
  if (where.header) {
    delete headers[where.header.toLowerCase()];
    return;
  }
  const name = looseName(where.cookie!);
  const kept = cookies(headers).filter(([n, value]) => looseName(n) !== name && !value.includes(token));
  if (kept.length > 0) headers.cookie = kept.map(([n, value]) => `${n}=${value}`).join('; ');
  else delete headers.cookie;
}

/** How many cookies some upstream's parser could read as `name` (stripToken removes them all). */
export function countCookie(headers: ForwardHeaders, name: string): number {
  const loose = looseName(name);
  return cookies(headers).filter(([n]) => looseName(n) === loose).length;
}

function cookies(headers: ForwardHeaders): [string, string][] {
  // Stryker disable next-line StringLiteral: no Cookie header; any text without "=" holds no cookie either
  const raw = headers.cookie ?? '';
  const text = Array.isArray(raw) ? raw.join('; ') : raw;
  // A part without a name (`flag`, `=x`, ` =x`) is no cookie: never read, and not forwarded when a cookie is stripped.
  return text.split(';').flatMap((part) => {
    const pair = part.trim();
    const eq = pair.indexOf('=');
    return eq > 0 ? [[pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()] as [string, string]] : [];
  });
}
