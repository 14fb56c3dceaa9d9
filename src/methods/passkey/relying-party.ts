import { ApiError } from '../../errors/api-error.ts';
import type { Organization } from '../../store/types.ts';

/** Where the organisation's passkeys live: the RP id they are bound to and the pages that may use them. */
export interface RelyingParty {
  rpId: string;
  origins: string[];
}

/** Whether the organisation has set an RP id and an origin: passkeys can be used at all. */
export function passkeysConfigured(org: Pick<Organization, 'config'>): boolean {
  return org.config.webauthn_rp_id !== null && org.config.webauthn_origins.length > 0;
}

/**
 * The organisation's WebAuthn settings, or 409 naming what is missing: without an RP id and an
 * origin no assertion could ever verify, so a ceremony is not even started.
 */
export function relyingPartyOf(org: Organization): RelyingParty {
  const missing = [
    ...(org.config.webauthn_rp_id === null ? ['webauthn_rp_id'] : []),
    ...(org.config.webauthn_origins.length === 0 ? ['webauthn_origins'] : []),
  ];
  if (missing.length > 0) {
    const message = `passkeys: the organisation has not set ${missing.join(' and ')} (PATCH /organizations/config), so no passkey ceremony can run`;
    throw new ApiError('WEBAUTHN_NOT_CONFIGURED', message);
  }
  return { rpId: org.config.webauthn_rp_id!, origins: org.config.webauthn_origins };
}
