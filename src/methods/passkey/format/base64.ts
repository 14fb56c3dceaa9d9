/**
 * Strict base64 decoding for the public-key type's fields. Buffer.from(text, 'base64') skips
 * characters it does not know and ignores what follows padding, so a typo would decode to some
 * other bytes rather than fail; these helpers check the text first and refuse instead.
 */

const STANDARD = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE = /^[A-Za-z0-9_-]*={0,2}$/;
const URL_SAFE_UNPADDED = /^[A-Za-z0-9_-]*$/;

/**
 * Decodes base64 (RFC 4648 §4) or base64url (§5), padded or not, but not a mix of the two
 * alphabets. Undefined when the text is not one of those or does not end on whole bytes.
 */
export function decodeBase64OrBase64Url(text: string): Buffer | undefined {
  const alphabet = STANDARD.test(text) ? 'base64' : URL_SAFE.test(text) ? 'base64url' : undefined;
  if (alphabet === undefined) return undefined;
  const unpadded = text.replace(/=+$/, '');
  // Padding, when present, must be exactly what the length calls for.
  if (unpadded.length !== text.length && text.length % 4 !== 0) return undefined;
  const decoded = decodeCanonical(unpadded, alphabet);
  return decoded;
}

/** Decodes unpadded base64url (what browsers send as a credential id); undefined otherwise. */
export function decodeBase64Url(text: string): Buffer | undefined {
  if (!URL_SAFE_UNPADDED.test(text)) return undefined;
  return decodeCanonical(text, 'base64url');
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

export function toBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

/**
 * A length of 1 mod 4 cannot end on a whole byte, and unused trailing bits must be zero: otherwise
 * several texts would name the same bytes, and a credential id compared as text would not match.
 */
function decodeCanonical(unpadded: string, alphabet: 'base64' | 'base64url'): Buffer | undefined {
  if (unpadded.length % 4 === 1) return undefined;
  const bytes = Buffer.from(unpadded, alphabet);
  const reencoded = bytes.toString(alphabet).replace(/=+$/, '');
  return reencoded === unpadded ? bytes : undefined;
}
