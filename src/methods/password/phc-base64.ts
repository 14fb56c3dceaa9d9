/**
 * The PHC string format's base64: the standard alphabet (A–Z a–z 0–9 + /) without padding.
 * Decoding is strict, as the argon2 reference decoder is: a length that cannot come from whole
 * bytes (4n+1 characters) or unused trailing bits that are not zero mean the text was cut or
 * altered, so it is refused rather than silently decoded to other bytes.
 */
const PHC_BASE64 = /^[A-Za-z0-9+/]*$/;

/** The bytes, or null when `text` is not canonical PHC base64. */
export function decodePhcBase64(text: string): Buffer | null {
  if (!PHC_BASE64.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, 'base64');
  // Re-encoding catches non-zero unused bits: Node ignores them when decoding.
  return encodePhcBase64(bytes) === text ? bytes : null;
}

export function encodePhcBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64').replace(/=+$/, '');
}
