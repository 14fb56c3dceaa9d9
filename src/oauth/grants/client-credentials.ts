import { oauthError } from '../errors.ts';
import { isScopeToken, scopeSet } from '../scope.ts';
import type { IssueRequest } from '../tokens/issuer.ts';
import { type Grant, organizationConfig } from './grant.ts';

/** RFC 6749 §4.4: the client asks for a token for itself. */
export const clientCredentials: Grant = {
  type: 'client_credentials',
  auditType: 'token.client_credentials',
  requiresClient: true,
  async handle(context) {
    const { params, client, deps, audit } = context;
    if (!client) throw new TypeError('client_credentials reached without an authenticated client');
    audit.subject = client.id;
    const requested = params.get('scope');
    let scope: string;
    if (requested === undefined) {
      // RFC 6749 §3.3 lets the server pick a default: every scope the client holds.
      scope = client.scopes.join(' ');
    } else {
      const wanted = [...scopeSet(requested)];
      const bad = wanted.find((s) => !isScopeToken(s));
      if (bad !== undefined) throw oauthError('invalid_request', 'scope is not a space-delimited list of scope tokens');
      const extra = wanted.filter((s) => !client.scopes.includes(s));
      if (extra.length > 0) throw oauthError('invalid_scope', `the client may not request: ${extra.join(' ')}`);
      scope = wanted.join(' ');
    }
    for (const name of ['subject_token', 'actor_token', 'requested_token_type']) {
      if (params.has(name)) throw oauthError('invalid_request', `parameter ${name} does not belong to grant_type client_credentials`);
    }
    const { token_lifetime_ceiling } = await organizationConfig(context, client.orgId);
    const lifetimeSeconds = Math.min(client.accessTokenDuration, token_lifetime_ceiling);
    const issue: IssueRequest = { orgId: client.orgId, subject: client.id, clientId: client.id, scope, lifetimeSeconds };
    const access_token = client.accessTokenFormat === 'jwt' ? await deps.issuer.jwt(issue) : await deps.issuer.opaque(issue);
    return { access_token, token_type: 'Bearer', expires_in: lifetimeSeconds, ...(scope ? { scope } : {}) };
  },
};
