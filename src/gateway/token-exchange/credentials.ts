import type { ForwardHeaders } from '../proxy/headers.ts';

/** A token read from a header (a `Bearer ` scheme is taken off) or from one cookie. */
export interface TokenLocation {
  header?: string;
  cookie?: string;
}

export function readToken(headers: ForwardHeaders, where: TokenLocation): string | undefined {
  if (where.header) {
    const raw = headers[where.header.toLowerCase()];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (!value) return undefined;
    const bearer = /^Bearer\s+(\S+)$/i.exec(value);
    return bearer ? bearer[1] : value;
  }
  return cookies(headers).find(([name]) => name === where.cookie)?.[1] || undefined;
}

/** Removes the token: the whole header, or just that cookie with the others kept intact. */
export function stripToken(headers: ForwardHeaders, where: TokenLocation): void {
  if (where.header) {
    delete headers[where.header.toLowerCase()];
    return;
  }
  const kept = cookies(headers).filter(([name]) => name !== where.cookie);
  if (kept.length > 0) headers.cookie = kept.map(([name, value]) => `${name}=${value}`).join('; ');
  else delete headers.cookie;
}

function cookies(headers: ForwardHeaders): [string, string][] {
  const raw = headers.cookie;
  const text = Array.isArray(raw) ? raw.join('; ') : raw ?? '';
  return text.split(';').flatMap((part) => {
    const eq = part.indexOf('=');
    return eq > 0 ? [[part.slice(0, eq).trim(), part.slice(eq + 1).trim()] as [string, string]] : [];
  });
}
