// Defaults that are not environment variables (those live in service-config.ts, each beside
// its rule). Every default the API applies comes from here.

/**
 * An organisation's settings (/organizations/config), declared here beside their defaults so that
 * this leaf imports nothing; the organisations' store re-exports it.
 */
export interface OrganizationConfig {
  /** Upper bound, in seconds, on the lifetime of any token issued for the organisation. */
  token_lifetime_ceiling: number;
  /** SPIFFE trust domain → JWKS URL of its JWT-SVID signing keys. */
  svid_jwks_urls: Record<string, string>;
  allowed_spiffe_ids: string[];
  /** From address of verification emails; null: TESSERA_SMTP_FROM. */
  email_sender: string | null;
  /** Display name of verification emails' From header; null: the organisation's name. */
  email_sender_name: string | null;
  /** The WebAuthn relying party id (a registrable domain) passkeys are bound to; null: passkeys are off. */
  webauthn_rp_id: string | null;
  /** The https origins (http only for localhost) whose pages may run a WebAuthn ceremony. */
  webauthn_origins: string[];
  /** Refuse a passkey login whose signature counter did not increase (a possible clone). */
  webauthn_refuse_clone_warning: boolean;
}

export const organizationConfigDefaults: Readonly<OrganizationConfig> = Object.freeze({
  token_lifetime_ceiling: 3600,
  svid_jwks_urls: {},
  allowed_spiffe_ids: [],
  email_sender: null,
  email_sender_name: null,
  webauthn_rp_id: null,
  webauthn_origins: [],
  webauthn_refuse_clone_warning: false,
});

export const clientDefaults = Object.freeze({
  accessTokenDuration: 3600,
  accessTokenFormat: 'opaque' as const,
});

/**
 * No token of any organisation outlives this (the upper bound of token_lifetime_ceiling);
 * a retired signing key therefore stays published this long after its retirement.
 */
export const MAX_TOKEN_LIFETIME_SECONDS = 86_400;

export const pageDefaults = Object.freeze({ limit: 25, maxLimit: 100 });

/**
 * Console sessions (src/console/session.ts): signed out after 30 minutes without a request and
 * 12 hours after sign-in whatever the activity (OWASP's session-management guidance for
 * low-risk applications is 15–30 minutes idle and 4–8 hours absolute; a helpdesk shift is
 * longer, so the absolute end is a working day), and a password accepted has 5 minutes for its
 * TOTP code. A session's last activity is written at most once a minute.
 */
export const consoleSessionDefaults = Object.freeze({
  idleMs: 30 * 60_000,
  absoluteMs: 12 * 3_600_000,
  secondFactorMs: 5 * 60_000,
  touchEveryMs: 60_000,
});

/**
 * Every listener's bounds (src/runtime/listener-policy.ts), the service's and the gateway's alike;
 * each is a setting (TESSERA_* in service-config.ts, the gateway's in its configuration).
 * Headers get 10 s, as the gateway always gave them; a whole request 30 s, which a 64 KiB body
 * meets at 20 kbit/s. Idle keep-alive lasts 65 s, past the 60 s idle timeout of common load
 * balancers, so that a balancer never reuses a connection we have just closed; 1,000 requests per
 * connection, so long-lived connections move between workers and replicas now and then.
 * Connection caps are per process: 256 from one address admits the benchmarks' 50 and a NAT'd
 * office, and 4,096 in all stays far below the file handles Node raises its limit to.
 */
export const listenerDefaults = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  /** Longer than any answer of ours takes to start (an email sent: TESSERA_SMTP_TIMEOUT, 10 s). */
  idleTimeoutMs: 60_000,
  maxRequestsPerConnection: 1_000,
  maxConnections: 4_096,
  maxConnectionsPerAddress: 256,
});

/**
 * How long rows are kept past their use before the purge timer (TESSERA_TOKEN_PURGE_INTERVAL)
 * deletes them (src/housekeeping/purge-stale-rows.ts). Finished email verifications stay a day
 * for reading. An attempt counter of a handle that names no one goes after a week without an
 * attempt: long enough that waiting out its purge to learn, from the delay of the next failure,
 * whether a handle names a person costs a week per question (docs/security.md).
 */
export const purgeDefaults = Object.freeze({
  verificationKeptMs: 24 * 3_600_000,
  attemptsOfNoOneKeptMs: 7 * 24 * 3_600_000,
});

/**
 * How long after it began a password failure is answered (TESSERA_LOGIN_FAILURE_TIME; why in
 * src/authn/failure-time.ts): 1 s by default, above what verifying the costliest accepted hash
 * takes. Here rather than beside its rule in service-config.ts because the login flow falls back
 * on it too. The bounds: at least 100 ms, above the policy hash's cost (argon2id m=19 MiB t=2,
 * about 35 ms on the benchmark machine); at most 10 s, beyond which people give up.
 */
export const DEFAULT_FAILURE_TIME_MS = 1000;
export const FAILURE_TIME_RANGE_MS = { min: 100, max: 10_000 } as const;

/** How long an invitation link works (design §9): 72 h unless `expires_in` says otherwise, from 5 minutes to 7 days. */
export const invitationDefaults = Object.freeze({ lifetimeSeconds: 72 * 3600, minSeconds: 300, maxSeconds: 7 * 24 * 3600 });
