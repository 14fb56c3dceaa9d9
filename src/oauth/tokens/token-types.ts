/** RFC 8693 §3 token type identifiers this server issues and accepts. */
export const TOKEN_TYPE = {
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
} as const;
export type TokenTypeUri = (typeof TOKEN_TYPE)[keyof typeof TOKEN_TYPE];
/** Every type this server accepts, in the order error messages and configuration list them. */
export const TOKEN_TYPE_URIS = [TOKEN_TYPE.jwt, TOKEN_TYPE.accessToken] as const;

/** Prefix of this server's opaque access tokens; recognisable by secret scanners. */
export const OPAQUE_PREFIX = 'tat_';

export type TokenShape = 'jwt' | 'opaque' | 'unknown';

/** What a token looks like: a compact JWS, one of our opaque tokens, or neither. */
export function tokenShape(value: string): TokenShape {
  if (value.startsWith(OPAQUE_PREFIX)) return 'opaque';
  if (/^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/.test(value)) return 'jwt';
  return 'unknown';
}
