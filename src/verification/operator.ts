import { type Proof, requireAssurance } from '../authn/assurance.ts';
import { ApiError } from '../errors/api-error.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { Person } from '../store/types.ts';
import { canonicalEmailAddress } from '../validation/email.ts';
import type { Operator, VerificationCaller } from './deps.ts';

/** Spec §5.4: an operator is a console person of the organisation who holds the verifier role. */
export function isVerifier(person: Person | undefined): person is Person {
  return person?.console === true && person.roles.includes('verifier');
}

/**
 * The person an integration's `operator.email` names, who must be a verifier (else 403). The
 * answer is the same whether the address names nobody or someone without the role, so an
 * integration cannot use it to learn who works in the console.
 */
export async function operatorPerson(store: PersonStore, orgId: string, email: string): Promise<Person> {
  const person = await store.findPersonByHandle(orgId, { type: 'email_address', value: canonicalEmailAddress(email) });
  if (!isVerifier(person)) {
    throw new ApiError('FORBIDDEN', 'body.operator.email: does not name a console person of the organisation holding the verifier role');
  }
  return person;
}

/** A verifier at the helpdesk: the caller and operator the core records, and the operator's person id (what their rate limits count by). */
export interface HelpdeskOperator {
  caller: VerificationCaller;
  operator: Operator;
  operatorId: string;
}

/**
 * The person at the helpdesk door (the API with their own JWT, or the console's session) as the
 * operator of their checks: signed in with two factors (design §5: always, whatever they hold;
 * else 401), a verifier with an email handle (else 403, `who` saying which credential named them).
 */
export function helpdeskOperator(person: Person, proof: Proof, who: string): HelpdeskOperator {
  requireAssurance(proof, { twoFactors: true }, 'the helpdesk door');
  const email = person.handles.find((handle) => handle.type === 'email_address')?.value;
  if (!isVerifier(person) || email === undefined) {
    throw new ApiError('FORBIDDEN', `${who}: the person is not a console person holding the verifier role, with an email handle`);
  }
  return { caller: { door: 'helpdesk', personId: person.id }, operator: { email, assertion: 'helpdesk_session' }, operatorId: person.id };
}
