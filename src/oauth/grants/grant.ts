import type { AuditStore } from '../../store/audit/store.ts';
import type { ClientStore } from '../../store/clients/store.ts';
import type { OrganizationStore } from '../../store/organizations/store.ts';
import type { PersonStore } from '../../store/persons/store.ts';
import type { RateLimitStore } from '../../store/rate-limits/store.ts';
import type { TokenStore } from '../../store/tokens/store.ts';
import type { OAuthClient, OrganizationConfig } from '../../store/types.ts';
import type { ClientKeySets } from '../client-key-sets.ts';
import type { OAuthParams } from '../form.ts';
import type { TokenIssuer } from '../tokens/issuer.ts';
import type { TokenReader } from '../tokens/reader.ts';
import type { TokenTypeUri } from '../tokens/token-types.ts';

/** Verifies a SPIFFE JWT-SVID actor token against an organisation's trust settings. */
export interface SvidVerifierLike {
  verify(token: string, trust: Pick<OrganizationConfig, 'svid_jwks_urls' | 'allowed_spiffe_ids'>, audience: string): Promise<{ spiffeId: string }>;
  verifyIdentity(
    token: string,
    trust: Pick<OrganizationConfig, 'svid_jwks_urls'>,
    audience: string,
  ): Promise<{ spiffeId: string; claims: { aud?: string | string[] } }>;
}

/** What the token, introspection and revocation endpoints read and write. */
export type OAuthStore = OrganizationStore & ClientStore & PersonStore & TokenStore & RateLimitStore & AuditStore;

export interface OAuthDeps {
  store: OAuthStore;
  issuer: TokenIssuer;
  reader: TokenReader;
  svids: SvidVerifierLike;
  /** The key sets of private_key_jwt clients registered with a jwks_uri. */
  clientKeys: ClientKeySets;
  now: () => number;
  /** Where a failed client authentication is counted once the audit has recorded its share. */
  attemptMetrics?: UnauditedAttempts;
}

/** The metric of attempts the audit log does not keep (the service passes authn's attempt metrics). */
export interface UnauditedAttempts {
  unaudited(attempt: { method: string; outcome: 'failure'; reason: string }): void;
}

/** What an audit event of a token request says; filled in as the grant learns it. */
export interface AuditNotes {
  orgId?: string;
  subject?: string;
  actor?: string;
  requestedTokenType?: string;
}

export interface GrantContext {
  params: OAuthParams;
  client: OAuthClient | undefined;
  /** The authenticated client's organisation configuration. */
  clientConfig: OrganizationConfig | undefined;
  deps: OAuthDeps;
  audit: AuditNotes;
}

/** RFC 6749 §5.1 / RFC 8693 §2.2.1 success response. */
export interface TokenResponse {
  access_token: string;
  issued_token_type?: TokenTypeUri;
  token_type: 'Bearer';
  expires_in: number;
  scope?: string;
}

export interface Grant {
  /** The grant_type value. */
  type: string;
  /** The audit event type recorded for every request of this grant. */
  auditType: string;
  /** Whether the grant needs an authenticated client (clientless token exchange does not). */
  requiresClient: boolean;
  handle(context: GrantContext): Promise<TokenResponse>;
}

/**
 * The configuration (lifetime ceiling, SPIFFE trust) of the organisation a token request acts
 * in: already at hand when the client authenticated in that organisation, read otherwise.
 */
export async function organizationConfig(context: Pick<GrantContext, 'deps' | 'client' | 'clientConfig'>, orgId: string): Promise<OrganizationConfig> {
  if (context.clientConfig && context.client?.orgId === orgId) return context.clientConfig;
  const org = await context.deps.store.getOrganization(orgId);
  if (!org) throw new Error(`organisation ${orgId} vanished during a token request`);
  return org.config;
}
