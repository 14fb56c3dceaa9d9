/**
 * The console's two cookies. Outside development they are Secure and carry the __Host- prefix,
 * which a browser accepts only from a secure origin with Path=/ and no Domain, so no subdomain
 * or plain-http page can plant or shadow them.
 */
export interface CookieNames {
  /** The signed-in (or half signed-in) session. */
  session: string;
  /** A random value a signed-out browser holds, so that its forms (sign-in itself) have a CSRF token too. */
  anonymous: string;
}

export function cookieNames(secure: boolean): CookieNames {
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}tessera-console`, anonymous: `${prefix}tessera-console-anon` };
}

/** The value of one cookie in a Cookie header; the first when a name repeats (RFC 6265 §5.4 sends the most specific first). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      // Our values are base64url: anything else was not set by us and opens nothing.
      return /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export interface CookieOptions {
  secure: boolean;
  /** Seconds; 0 deletes the cookie. Omitted: a browser-session cookie. */
  maxAge?: number;
}

/** A Set-Cookie value: HttpOnly and SameSite=Strict always, Path=/ for the __Host- prefix. */
export function setCookie(name: string, value: string, { secure, maxAge }: CookieOptions): string {
  return [
    `${name}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    ...(secure ? ['Secure'] : []),
    ...(maxAge === undefined ? [] : [`Max-Age=${maxAge}`]),
  ].join('; ');
}
