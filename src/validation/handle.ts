import { canonicalEmailAddress, emailAddressProblem } from './email.ts';
import { unsafeCharacterProblem } from './unsafe-characters.ts';

export const handleTypes = ['email_address', 'phone_number'] as const;
export type HandleType = (typeof handleTypes)[number];

/** How a person is found and reached: declared here, with its rules, so that validation/ imports nothing of the product. */
export interface Handle {
  type: HandleType;
  value: string;
}

/** E.164: + then up to 15 digits, no leading 0; one number has one spelling. */
const E164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * The one spelling of a handle under which it is stored, compared and looked up: email
 * addresses as canonicalEmailAddress makes them, phone numbers as given (E.164 allows no
 * other spelling, and a value that is not E.164 is refused, not repaired). Everything that
 * writes or finds a person by handle goes through this; the store applies it itself, so two
 * spellings of one address can neither name two persons nor miss each other in a look-up.
 */
export function canonicalHandle(handle: Handle): Handle {
  return { type: handle.type, value: handle.type === 'email_address' ? canonicalEmailAddress(handle.value) : handle.value };
}

/** The rule a canonical handle's value breaks, or undefined when it is acceptable. */
export function handleProblem(handle: Handle): string | undefined {
  if (handle.type === 'email_address') return emailAddressProblem(handle.value);
  return (
    unsafeCharacterProblem(handle.value) ?? (E164.test(handle.value) ? undefined : 'must be an E.164 phone number (+ then 7 to 15 digits, e.g. +14155550100)')
  );
}
