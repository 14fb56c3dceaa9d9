import { tenantUrlProblem } from '../egress/address-policy.ts';
import { parseWorkloadSpiffeId } from '../oauth/spiffe/spiffe-id.ts';
import type { OrganizationConfig } from '../store/types.ts';
import { isEmailAddress } from '../validation/email.ts';
import { unsafeCharacterProblem } from '../validation/unsafe-characters.ts';

export interface Problem {
  field: string;
  rule: string;
}

/** Rules JSON Schema cannot say: URL schemes, SPIFFE ID grammar, and how the fields relate. */
export function checkOrganizationConfig(config: OrganizationConfig, options: { dev: boolean }): Problem | undefined {
  for (const [trustDomain, raw] of Object.entries(config.svid_jwks_urls)) {
    const field = `svid_jwks_urls.${trustDomain}`;
    const problem = tenantUrlProblem(raw, { dev: options.dev, allowQuery: true });
    if (problem) return { field, rule: problem };
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
  if (config.email_sender_name !== null) {
    // It becomes a mail header and part of the message: no line breaks, nothing invisible.
    const unsafe = unsafeCharacterProblem(config.email_sender_name);
    if (unsafe) return { field: 'email_sender_name', rule: unsafe };
    if (config.email_sender_name.trim() !== config.email_sender_name) return { field: 'email_sender_name', rule: 'must not start or end with white space' };
  }
  return checkWebAuthnConfig(config);
}

/** A DNS label as WebAuthn RP ids use them: lowercase A-labels (IDNs in their xn-- form). */
const DNS_LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * WebAuthn §5.1.2: the RP id is a domain (never an IP address), and every origin's host is that
 * domain or a subdomain of it. Which suffixes are public (no "co.uk") is the browser's check; a
 * single-label name other than localhost could never be one a browser accepts, so it is refused.
 */
function checkWebAuthnConfig(config: OrganizationConfig): Problem | undefined {
  const rpId = config.webauthn_rp_id;
  if (rpId !== null) {
    const labels = rpId.split('.');
    const domain = labels.every((label) => DNS_LABEL.test(label)) && rpId.length <= 253;
    const registrable = rpId === 'localhost' || (labels.length >= 2 && !/^[0-9]+$/.test(labels.at(-1)!));
    if (!domain || !registrable) {
      return {
        field: 'webauthn_rp_id',
        rule: 'must be a registrable domain in lowercase, e.g. example.com (no scheme, port, path or IP address), or localhost',
      };
    }
  }
  for (const [index, raw] of config.webauthn_origins.entries()) {
    const field = `webauthn_origins[${index}]`;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { field, rule: 'must be an origin such as https://login.example.com' };
    }
    // The origin a browser reports is exactly scheme://host[:port], nothing after it.
    if (url.origin !== raw) return { field, rule: `must be an origin, scheme://host[:port] with nothing after it (did you mean ${url.origin}?)` };
    const localhost = url.hostname === 'localhost';
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && localhost)) return { field, rule: 'must use https (http is allowed for localhost only)' };
    if (rpId !== null && url.hostname !== rpId && !url.hostname.endsWith(`.${rpId}`)) {
      return { field, rule: `host ${url.hostname} is not webauthn_rp_id (${rpId}) or a subdomain of it, so no browser would run a ceremony for it` };
    }
  }
  return undefined;
}
