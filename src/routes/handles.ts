import { invalidField } from '../errors/api-error.ts';
import { isEmailAddress } from '../validation/email.ts';
import type { Handle } from '../store/types.ts';

const E164 = /^\+[1-9][0-9]{6,14}$/;

/**
 * Validates and normalises handles: email addresses are compared case-insensitively, so they
 * are stored lower-cased; phone numbers must already be E.164, so one number has one spelling.
 */
export function normaliseHandles(handles: readonly Handle[], field = 'body.handles'): Handle[] {
  const seen = new Map<string, number>();
  return handles.map((handle, index) => {
    const at = `${field}[${index}].value`;
    const value = handle.type === 'email_address' ? handle.value.toLowerCase() : handle.value;
    if (handle.type === 'email_address' && !isEmailAddress(value)) throw invalidField(at, 'must be an email address (local@domain.tld)');
    if (handle.type === 'phone_number' && !E164.test(value)) throw invalidField(at, 'must be an E.164 phone number (+ then 7 to 15 digits, e.g. +14155550100)');
    const key = `${handle.type}:${value}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) throw invalidField(`${field}[${index}]`, `repeats ${field}[${earlier}]`);
    seen.set(key, index);
    return { type: handle.type, value };
  });
}
