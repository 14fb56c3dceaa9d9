/**
 * bcrypt's own base64: alphabet `./A–Za–z0–9`, no padding, bits read most significant first.
 * A 22-character salt carries 16 bytes and a 31-character hash 23 bytes; the last character of
 * each has unused low bits, which crypt_blowfish and OpenBSD always write as zero.
 */
const ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const INDEX = new Map([...ALPHABET].map((char, index) => [char, index]));

export function encodeBcryptBase64(bytes: Uint8Array): string {
  let text = '';
  for (let offset = 0; offset < bytes.length; offset += 3) {
    const chunk = [bytes[offset]!, bytes[offset + 1] ?? 0, bytes[offset + 2] ?? 0];
    const bits = (chunk[0]! << 16) | (chunk[1]! << 8) | chunk[2]!;
    const characters = Math.min(4, Math.ceil(((bytes.length - offset) * 8) / 6));
    for (let i = 0; i < characters; i++) text += ALPHABET[(bits >> (18 - 6 * i)) & 63];
  }
  return text;
}

/** `byteLength` bytes, or null when `text` has another character or non-zero unused bits. */
export function decodeBcryptBase64(text: string, byteLength: number): Buffer | null {
  if (text.length !== Math.ceil((byteLength * 8) / 6)) return null;
  const bytes = Buffer.alloc(byteLength);
  let accumulator = 0;
  let bitCount = 0;
  let written = 0;
  for (const char of text) {
    const value = INDEX.get(char);
    if (value === undefined) return null;
    accumulator = ((accumulator << 6) | value) & 0xffffff;
    bitCount += 6;
    if (bitCount >= 8 && written < byteLength) {
      bitCount -= 8;
      bytes[written++] = (accumulator >> bitCount) & 0xff;
    }
  }
  // What is left over must be zero bits, or the text is not what an implementation writes.
  return (accumulator & ((1 << bitCount) - 1)) === 0 ? bytes : null;
}
