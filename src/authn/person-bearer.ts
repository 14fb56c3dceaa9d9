import { ApiError } from '../errors/api-error.ts';
import { EARLIER_GENERATION, isOfCurrentGeneration } from '../oauth/tokens/person-generation.ts';
import { type OwnToken, type TokenReader, TokenRejected } from '../oauth/tokens/reader.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { Organization, Person } from '../store/types.ts';
import type { Proof } from './assurance.ts';

/** The person an `Authorization: Bearer <person JWT>` names, and what their token proves of the sign-in. */
export interface PersonBearer {
  person: Person;
  proof: Proof;
}

/**
 * The one reading of a person JWT presented to act as the person (factor management, the
 * helpdesk door): a JWT of this service and organisation held by the person themselves (not a
 * client's token, not a delegated one), of the person's current generation. What it may do is
 * then asked of its `proof` (assurance.ts). Every refusal is 401 naming the header, but a
 * client's or delegated token, which is valid and simply not the person's, is 403.
 */
export async function personOfBearer(authorization: string | undefined, org: Organization, store: PersonStore, reader: TokenReader): Promise<PersonBearer> {
  if (authorization === undefined) throw new ApiError('UNAUTHENTICATED', 'header Authorization: is required (Bearer and a person JWT)');
  const match = /^Bearer ([^\s]+)$/i.exec(authorization);
  if (!match) throw new ApiError('UNAUTHENTICATED', 'header Authorization: must be Bearer and a person JWT');
  const refused = (why: string) => new ApiError('UNAUTHENTICATED', `header Authorization: the token ${why}`);
  let token: OwnToken;
  try {
    token = await reader.jwt(match[1]!);
  } catch (error) {
    if (error instanceof TokenRejected) throw refused(error.message);
    throw error;
  }
  if (token.orgId !== org.id) throw refused('is of another organisation');
  if (token.act !== undefined || token.clientId !== undefined) {
    throw new ApiError('FORBIDDEN', "header Authorization: must be the person's own JWT, not a token issued to a client or a delegated one");
  }
  const person = await store.getPerson(org.id, token.subject);
  if (!person) throw refused('names no person of this organisation');
  if (!isOfCurrentGeneration(token, person)) throw refused(EARLIER_GENERATION);
  return { person, proof: { amr: token.amr, authTime: token.authTime } };
}
