import { domainToUnicode } from 'node:url';
import { mixedScripts } from './mixed-scripts.ts';
import { unsafeCharacterProblem } from './unsafe-characters.ts';

/**
 * A pragmatic address check (no quoted local parts, no IP literals): what real directories
 * hold, strict enough to catch typos such as spaces or a missing domain dot. Applies to the
 * canonical (lower-cased) form. The domain is ASCII; an internationalised one is given in its
 * A-label form (xn--…).
 */
export const EMAIL_ADDRESS = /^[^\s@"<>(),;:\\[\]]{1,64}@(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/**
 * The one spelling under which an address is stored and compared: Unicode NFC, so composed
 * and decomposed accents are the same address, then lower-cased whole. Lower-casing the local
 * part too is a choice (RFC 5321 lets a mail server tell cases apart; none in use does), the
 * one Keycloak and Entra ID make. NFC again last, as lower-casing can undo it.
 */
export function canonicalEmailAddress(value: string): string {
  return value.normalize('NFC').toLowerCase().normalize('NFC');
}

/** The rule a canonical address breaks, or undefined when it is acceptable. */
export function emailAddressProblem(address: string): string | undefined {
  const unsafe = unsafeCharacterProblem(address);
  if (unsafe) return unsafe;
  if (!EMAIL_ADDRESS.test(address)) return 'must be an email address (local@domain.tld)';
  const at = address.lastIndexOf('@');
  // A-labels are checked as people see them: "xn--pypal-4ve" is "pаypal" with a Cyrillic "а".
  const ascii = address.slice(at + 1);
  const domain = (ascii.includes('xn--') && domainToUnicode(ascii)) || ascii;
  const unsafeInDomain = unsafeCharacterProblem(domain);
  if (unsafeInDomain) return unsafeInDomain;
  const labels = [
    ...address
      .slice(0, at)
      .split('.')
      .map((label, i) => [`local part label ${i + 1}`, label] as const),
    ...domain.split('.').map((label, i) => [`domain label ${i + 1}`, label] as const),
  ];
  for (const [where, label] of labels) {
    const scripts = mixedScripts(label);
    if (scripts) return `must not mix scripts within one label (${where} mixes ${scripts.join(', ')}; UTS #39 "Highly Restrictive")`;
  }
  return undefined;
}

/** Whether the value, once canonical, is an acceptable address by every rule above. */
export function isEmailAddress(value: string): boolean {
  return emailAddressProblem(canonicalEmailAddress(value)) === undefined;
}
