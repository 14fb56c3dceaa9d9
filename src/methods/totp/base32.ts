/** RFC 4648 §6 Base32 (RFC 3548 §5 before it), the encoding of a key URI's secret. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const IN_ALPHABET = /^[A-Z2-7]*$/;

/**
 * Unpadded Base32 ends in a group of 2, 4, 5 or 7 characters (1 to 4 bytes) or a whole group
 * of 8 (5 bytes); a group of 1, 3 or 6 characters cannot come out of any byte string.
 */
const IMPOSSIBLE_REMAINDERS = new Set([1, 3, 6]);

/**
 * The rule `text` breaks as unpadded Base32, or undefined. Letters are accepted in either case
 * (authenticator apps and some issuers write lower case); decodeBase32 reads them upper-cased.
 */
export function base32Problem(text: string): string | undefined {
  if (text.includes('=')) return 'must be Base32 without padding: remove the trailing "=" (RFC 4648 §6, omitted in key URIs)';
  if (!IN_ALPHABET.test(text.toUpperCase())) return 'must be Base32: only the letters A–Z and the digits 2–7 (RFC 4648 §6)';
  if (IMPOSSIBLE_REMAINDERS.has(text.length % 8)) return 'must be Base32 of whole bytes: its length cannot be 1, 3 or 6 more than a multiple of 8';
  return undefined;
}

/** Decodes Base32 that base32Problem accepted. */
export function decodeBase32(text: string): Uint8Array {
  const upper = text.toUpperCase();
  const bytes = new Uint8Array(Math.floor((upper.length * 5) / 8));
  let buffer = 0;
  let bits = 0;
  let index = 0;
  for (const char of upper) {
    buffer = ((buffer << 5) | ALPHABET.indexOf(char)) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes[index++] = (buffer >> bits) & 0xff;
    }
  }
  return bytes;
}

/** Unpadded upper-case Base32, as key URIs carry it. */
export function encodeBase32(bytes: Uint8Array): string {
  let text = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      text += ALPHABET[(buffer >> bits) & 0x1f];
    }
  }
  if (bits > 0) text += ALPHABET[(buffer << (5 - bits)) & 0x1f];
  return text;
}
