/** Records as the service sees them; each store maps them to and from its own columns. */

export interface OrganizationConfig {
  /** Upper bound, in seconds, on the lifetime of any token issued for the organisation. */
  token_lifetime_ceiling: number;
  /** SPIFFE trust domain → JWKS URL of its JWT-SVID signing keys. */
  svid_jwks_urls: Record<string, string>;
  allowed_spiffe_ids: string[];
  email_sender: string | null;
}

export interface Organization {
  id: string;
  name: string;
  config: OrganizationConfig;
  createdAt: number;
}

export const apiKeyKinds = ['admin', 'integration'] as const;
export type ApiKeyKind = (typeof apiKeyKinds)[number];

export interface ApiKey {
  id: string;
  orgId: string;
  name: string;
  kind: ApiKeyKind;
  secretHash: string;
  createdAt: number;
}

export const handleTypes = ['email_address', 'phone_number'] as const;
export type HandleType = (typeof handleTypes)[number];

export interface Handle {
  type: HandleType;
  value: string;
}

export const personRoles = ['admin', 'verifier'] as const;
export type PersonRole = (typeof personRoles)[number];

export interface Person {
  id: string;
  orgId: string;
  handles: Handle[];
  roles: PersonRole[];
  console: boolean;
  createdAt: number;
}

export const clientGrantTypes = [
  'client_credentials',
  'urn:ietf:params:oauth:grant-type:token-exchange',
] as const;
export type ClientGrantType = (typeof clientGrantTypes)[number];

export const accessTokenFormats = ['opaque', 'jwt'] as const;
export type AccessTokenFormat = (typeof accessTokenFormats)[number];

export interface OAuthClient {
  id: string;
  orgId: string;
  name: string;
  scopes: string[];
  grantTypes: ClientGrantType[];
  /** Lifetime in seconds of the access tokens the client is issued (before the org ceiling). */
  accessTokenDuration: number;
  accessTokenFormat: AccessTokenFormat;
  secretHash: string;
  createdAt: number;
}

/** Where a page starts, decoded from an opaque cursor by the HTTP layer. */
export type PagePosition =
  | { kind: 'first' }
  | { kind: 'after'; id: string }
  | { kind: 'before'; id: string }
  | { kind: 'last' };

export interface PageRequest {
  position: PagePosition;
  limit: number;
}

export interface Page<T> {
  items: T[];
  hasPrevious: boolean;
  hasNext: boolean;
  /** Counted for the first page only. */
  totalCount?: number;
}

export interface SigningKey {
  kid: string;
  alg: 'ES256';
  publicJwk: Record<string, unknown>;
  /** The private JWK sealed with the service secret (see crypto/secret-box.ts). */
  sealedPrivateJwk: string;
  status: 'active' | 'retired';
  createdAt: number;
  retiredAt: number | null;
}

/** What an RFC 8693 `act` claim holds: the actor, and the actor before it, newest first. */
export interface ActClaim {
  sub: string;
  act?: ActClaim;
}

export interface OpaqueToken {
  /** SHA-256 of the token value; the value itself is never stored. */
  hash: string;
  orgId: string;
  /** The client the token was issued to; an opaque subject is bound to it. */
  clientId: string | null;
  subject: string;
  /** Space-delimited, possibly empty. */
  scope: string;
  audience: string[];
  resource: string[];
  act: ActClaim | null;
  /** RFC 8693 §4.4, carried from the subject: the only actor that may exchange this token. */
  mayAct: { sub: string } | null;
  /** The opaque token this one was exchanged from; revoking that revokes this. */
  parentHash: string | null;
  issuedAt: number;
  expiresAt: number;
  revokedAt: number | null;
}

export interface AuditEvent {
  id: string;
  orgId: string;
  type: string;
  occurredAt: number;
  data: Record<string, unknown>;
}
