import { ApiError } from '../errors/api-error.ts';
import type { CredentialStore } from '../store/credentials/store.ts';
import type { Person, PersonRole } from '../store/types.ts';
import type { AmrValue } from './person-token.ts';

/**
 * How sure the service is of who a caller is (design §5): the RFC 8176 methods they proved and
 * when. Every check of a second factor asks one rule, `mfa`, of this; the checks differ only in
 * whether they need it and how recent the sign-in must be.
 */
export interface Proof {
  /** undefined: nothing was proven to us (a token from mint-token). */
  amr: readonly string[] | undefined;
  /** When the methods were proven (ms); undefined with no amr. */
  authTime: number | undefined;
}

/** The credential types that are a second factor beside a password. */
export const SECOND_FACTOR_TYPES = ['totp', 'public-key'] as const;

/** Roles whose holders sign in to the console with two factors and use the helpdesk door only with them. */
export const ROLES_NEEDING_TWO_FACTORS: readonly PersonRole[] = ['admin', 'verifier'];

/** Removals and new recovery codes need a sign-in no older than this; so do the console's sensitive actions. */
export const RECENT_SIGN_IN_MS = 10 * 60_000;

/** The methods that prove possession of something, beside a password's knowledge. */
const POSSESSION: readonly string[] = ['otp', 'hwk', 'swk'];

/** The one rule: two factors were proven. */
export function provedTwoFactors(proof: Pick<Proof, 'amr'>): boolean {
  return proof.amr?.includes('mfa') === true;
}

/**
 * `amr` with `mfa` added when the methods are two factors: a password and a possession (a code
 * or a passkey), or a passkey whose authenticator verified the user (a PIN or biometric: the
 * passkey is then something held and something known or been).
 */
export function withTwoFactors(amr: readonly AmrValue[]): AmrValue[] {
  const methods = [...new Set(amr.filter((method) => method !== 'mfa'))];
  const possession = methods.some((method) => POSSESSION.includes(method));
  const passkey = methods.includes('hwk') || methods.includes('swk');
  const two = possession && (methods.includes('pwd') || (passkey && methods.includes('user')));
  return two ? [...methods, 'mfa'] : methods;
}

/** A kind of second factor, as a person offers it to complete a sign-in. */
export type SecondFactorMethod = 'totp' | 'passkey';

/** The second factors a person holds: a TOTP credential, a passkey (public-key credential). */
export async function secondFactorMethods(
  store: Pick<CredentialStore, 'listCredentialsOfType'>,
  orgId: string,
  personId: string,
): Promise<SecondFactorMethod[]> {
  const [totp, passkeys] = await Promise.all(SECOND_FACTOR_TYPES.map((type) => store.listCredentialsOfType(orgId, personId, type)));
  return [...(totp!.length > 0 ? ['totp' as const] : []), ...(passkeys!.length > 0 ? ['passkey' as const] : [])];
}

/** Whether the person holds a second factor. */
export async function hasSecondFactor(store: Pick<CredentialStore, 'listCredentialsOfType'>, orgId: string, personId: string): Promise<boolean> {
  return (await secondFactorMethods(store, orgId, personId)).length > 0;
}

/** Whether the person's roles call for two factors in the console and at the helpdesk. */
export function needsTwoFactors(person: Pick<Person, 'roles'>): boolean {
  return person.roles.some((role) => ROLES_NEEDING_TWO_FACTORS.includes(role));
}

export interface AssuranceNeeded {
  /** Two factors (`mfa`). */
  twoFactors: boolean;
  /** A sign-in no older than RECENT_SIGN_IN_MS at `now`. */
  recent?: { now: number };
}

/**
 * Throws 401 INSUFFICIENT_USER_AUTHENTICATION (RFC 9470's step-up challenge, in the header too)
 * unless `proof` is what the operation needs. `operation` completes "… needs".
 */
export function requireAssurance(proof: Proof, needed: AssuranceNeeded, operation: string): void {
  if (proof.amr === undefined) {
    throw insufficient(
      `${operation} needs the person to sign in: a token from mint-token proves no sign-in (log in at /authn/password, /authn/totp or /authn/webauthn)`,
      'a sign-in is required',
    );
  }
  if (needed.twoFactors && !provedTwoFactors(proof)) {
    throw insufficient(
      `${operation} needs a sign-in with two factors (amr mfa): the password and then a TOTP code, recovery code or passkey, or a passkey alone`,
      'two factors are required',
    );
  }
  if (needed.recent && (proof.authTime === undefined || needed.recent.now - proof.authTime > RECENT_SIGN_IN_MS)) {
    const minutes = RECENT_SIGN_IN_MS / 60_000;
    throw insufficient(
      `${operation} needs a sign-in within the last ${minutes} minutes (auth_time); sign in again`,
      'a recent sign-in is required',
      RECENT_SIGN_IN_MS / 1000,
    );
  }
}

/**
 * The refusal of a sign-in without two factors that would add a second factor beside one added
 * meanwhile (a concurrent enrolment won): what requireAssurance says when it is asked afterwards.
 */
export function twoFactorsNeeded(operation: string): ApiError {
  return insufficient(`${operation} needs a sign-in with two factors (amr mfa): the person holds a second factor now`, 'two factors are required');
}

/** The 401 with RFC 9470's challenge; the header's description is a fixed ASCII phrase, the body says the rest. */
function insufficient(message: string, description: string, maxAgeSeconds?: number): ApiError {
  const challenge = `Bearer error="insufficient_user_authentication", error_description="${description}"${maxAgeSeconds ? `, max_age=${maxAgeSeconds}` : ''}`;
  return new ApiError('INSUFFICIENT_USER_AUTHENTICATION', message, { 'www-authenticate': challenge });
}
