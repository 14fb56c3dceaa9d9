/** SPIFFE-ID standard §2.3: every implementation must handle 2048 bytes, and none may need more. */
const MAX_ID_BYTES = 2048;
/** §2.3: the trust domain is a URI host, which RFC 3986 caps at 255 characters. */
const MAX_TRUST_DOMAIN_BYTES = 255;
const SCHEME = 'spiffe://';
const TRUST_DOMAIN = /^[a-z0-9._-]+$/;
const PATH_SEGMENT = /^[A-Za-z0-9._-]+$/;

export interface SpiffeId {
  trustDomain: string;
  /** '' for a trust domain's own ID, otherwise '/segment/...'. */
  path: string;
}

/**
 * Parses a SPIFFE ID, or returns undefined when it is not one. The character sets leave no
 * room for a port, userinfo, query, fragment or percent-encoding, and the scheme and trust
 * domain must already be lower case: accepting and normalising other spellings would let
 * two strings name one workload, and allow-lists compare IDs exactly.
 */
export function parseSpiffeId(value: unknown): SpiffeId | undefined {
  if (typeof value !== 'string' || !value.startsWith(SCHEME)) return undefined;
  // Every accepted character is ASCII, so the string length is the byte length.
  if (value.length > MAX_ID_BYTES) return undefined;
  const rest = value.slice(SCHEME.length);
  const slash = rest.indexOf('/');
  const trustDomain = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? '' : rest.slice(slash);
  if (trustDomain.length > MAX_TRUST_DOMAIN_BYTES || !TRUST_DOMAIN.test(trustDomain)) return undefined;
  // An empty segment also covers a trailing slash and '//'; '.' and '..' would make paths that
  // differ as strings resolve to the same place.
  if (
    path !== '' &&
    !path
      .slice(1)
      .split('/')
      .every((s) => PATH_SEGMENT.test(s) && s !== '.' && s !== '..')
  )
    return undefined;
  return { trustDomain, path };
}

/**
 * A SPIFFE ID that names a workload: one with a path. A path-less ID names the trust domain
 * itself, which no SVID is issued to and no allow-list should hold.
 */
export function parseWorkloadSpiffeId(value: unknown): SpiffeId | undefined {
  const id = parseSpiffeId(value);
  return id && id.path !== '' ? id : undefined;
}
