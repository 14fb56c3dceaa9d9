import { parseWorkloadSpiffeId } from '../oauth/spiffe/spiffe-id.ts';
import type { OrganizationConfig } from '../store/types.ts';
import { isEmailAddress } from '../validation/email.ts';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface Problem {
  field: string;
  rule: string;
}

/** Rules JSON Schema cannot say: URL schemes, SPIFFE ID grammar, and how the fields relate. */
export function checkOrganizationConfig(config: OrganizationConfig, options: { dev: boolean }): Problem | undefined {
  for (const [trustDomain, raw] of Object.entries(config.svid_jwks_urls)) {
    const field = `svid_jwks_urls.${trustDomain}`;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { field, rule: 'must be an absolute URL' };
    }
    const loopbackHttp = url.protocol === 'http:' && LOOPBACK.has(url.hostname);
    if (url.protocol !== 'https:' && !(loopbackHttp && options.dev)) {
      return { field, rule: loopbackHttp ? 'http is allowed for loopback only when the service runs with TESSERA_DEV=1; use https' : 'must use https' };
    }
    if (url.hash || url.username || url.password) return { field, rule: 'must not carry a fragment or credentials' };
  }
  for (const [index, id] of config.allowed_spiffe_ids.entries()) {
    const field = `allowed_spiffe_ids[${index}]`;
    // The verifier's own grammar: an ID it would refuse in a JWT-SVID can never be allowed to act.
    const spiffeId = parseWorkloadSpiffeId(id);
    if (!spiffeId) {
      return { field, rule: 'must be a SPIFFE ID spiffe://<trust-domain>/<path> (lowercase trust domain; path segments of letters, digits, ".", "-", "_")' };
    }
    // hasOwn, as the verifier looks it up: a trust domain named "constructor" is not in {}.
    if (!Object.hasOwn(config.svid_jwks_urls, spiffeId.trustDomain)) {
      return { field, rule: `trust domain ${spiffeId.trustDomain} has no entry in svid_jwks_urls, so this ID could never be verified` };
    }
  }
  if (config.email_sender !== null && !isEmailAddress(config.email_sender)) {
    return { field: 'email_sender', rule: 'must be an email address' };
  }
  return undefined;
}
