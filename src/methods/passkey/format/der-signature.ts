/**
 * Whether `signature` is an ECDSA signature in strict DER (X.690 §10): SEQUENCE { INTEGER r,
 * INTEGER s } with minimal definite lengths, minimal non-negative integers and nothing after.
 * WebAuthn requires DER for ES256 (§6.5.5); the library we verify with reads it leniently (it
 * pads short integers and ignores what follows), so one signature could be sent in several
 * spellings. Only the one DER spelling is accepted.
 */
export function isStrictDerEcdsaSignature(signature: Uint8Array): boolean {
  if (signature[0] !== 0x30) return false;
  const sequence = lengthAt(signature, 1);
  if (!sequence || sequence.start + sequence.length !== signature.length) return false;
  let at = sequence.start;
  for (let i = 0; i < 2; i++) {
    if (signature[at] !== 0x02) return false;
    const integer = lengthAt(signature, at + 1);
    if (!integer || integer.length === 0 || integer.start + integer.length > signature.length) return false;
    const first = signature[integer.start]!;
    if (first & 0x80) return false; // negative
    if (first === 0 && (integer.length === 1 || !(signature[integer.start + 1]! & 0x80))) return false; // a needless leading zero
    at = integer.start + integer.length;
  }
  return at === signature.length;
}

/** A DER length at `at`: short form, or the long form with one byte for 128 to 255. */
function lengthAt(bytes: Uint8Array, at: number): { length: number; start: number } | undefined {
  const first = bytes[at];
  if (first === undefined) return undefined;
  if (first < 0x80) return { length: first, start: at + 1 };
  const long = bytes[at + 1];
  if (first !== 0x81 || long === undefined || long < 0x80) return undefined;
  return { length: long, start: at + 2 };
}
