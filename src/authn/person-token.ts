import type { TokenIssuer } from '../oauth/tokens/issuer.ts';
import type { Organization } from '../store/types.ts';

/** RFC 8176 §2 method values a Tessera login can name. */
export const AMR_VALUES = ['pwd', 'otp', 'hwk', 'swk', 'mfa', 'user'] as const;
export type AmrValue = (typeof AMR_VALUES)[number];

/** What every successful authentication answers (design §3). */
export interface PersonLogin {
  token: string;
  person_id: string;
}

/** A finished sign-in: who, what they proved (with `mfa` when two factors), when, and at which of their generations. */
export interface SignIn {
  personId: string;
  amr: readonly AmrValue[];
  /** ms */
  authTime: number;
  generation: number;
}

/**
 * The person JWT a successful authentication returns: the same RFC 9068 access token as
 * POST /persons/{id}/mint-token (so /oauth2/tokens accepts it as a subject), with `amr`
 * saying how the person proved who they are, `auth_time` when, `gen` their generation (design
 * §5), and the organisation's lifetime ceiling.
 */
export async function issuePersonToken(issuer: TokenIssuer, org: Organization, signIn: SignIn): Promise<PersonLogin> {
  if (signIn.amr.length === 0) throw new TypeError('a person token after authentication names at least one method (amr)');
  const token = await issuer.jwt({
    orgId: org.id,
    subject: signIn.personId,
    scope: '',
    lifetimeSeconds: org.config.token_lifetime_ceiling,
    amr: [...signIn.amr],
    authTime: signIn.authTime,
    personGeneration: signIn.generation,
  });
  return { token, person_id: signIn.personId };
}
