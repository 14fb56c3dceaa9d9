import { type KeyObject, sign, verify } from 'node:crypto';

/**
 * RFC 7515 compact JWS, ES256 only, for this server's own access tokens, through node:crypto.
 *
 * jose 6 is WebCrypto-only: on Node each of its calls pays algorithm normalisation, WebIDL
 * conversion, a key clone and a promise job on top of the signature, which doubled the CPU of a
 * token exchange's one signature and one verification (docs/benchmarks.md, "Where the time
 * goes"). This module does only what this server's tokens need: one algorithm, no `crit`, no
 * unencoded payloads. Tokens of other issuers (JWT-SVIDs, their JWKS) still go through jose, and
 * the tests check that each side accepts what the other signs.
 */

/** Why a compact JWS was refused, before any of its claims are read. */
export type JwsProblem = 'malformed' | 'algorithm' | 'unsupported_header' | 'unknown_key' | 'signature';

export class JwsRejected extends Error {
  readonly problem: JwsProblem;
  constructor(problem: JwsProblem) {
    super(`the JWS was refused: ${problem}`);
    this.name = 'JwsRejected';
    this.problem = problem;
  }
}

export interface VerifiedJws {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

const ALG = 'ES256';
/** P-256 r and s, 32 bytes each, concatenated (RFC 7518 §3.4): a JWS signature is never DER. */
const SIGNATURE_BYTES = 64;
/** Strict base64url without padding: Buffer's decoder would skip characters outside it. */
const SEGMENT = /^[A-Za-z0-9_-]+$/;

export function signEs256(header: { kid: string; typ: string }, payload: Record<string, unknown>, key: KeyObject): string {
  if (key.type !== 'private' || key.asymmetricKeyType !== 'ec') throw new TypeError('signEs256 needs a private EC (P-256) key');
  const input = `${encode({ alg: ALG, ...header })}.${encode(payload)}`;
  // The key itself, not {key, dsaEncoding}: Node prepares a key passed in an options object again
  // on every call, which cost as much as the signature (51 against 25 µs on the benchmark machine).
  return `${input}.${derToJose(sign('sha256', Buffer.from(input), key)).toString('base64url')}`;
}

/** Checks the header and the signature; the claims are the caller's to judge. */
export async function verifyEs256(token: string, keyFor: (kid: string) => Promise<KeyObject | undefined>): Promise<VerifiedJws> {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => SEGMENT.test(part))) throw new JwsRejected('malformed');
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  const header = decodeObject(encodedHeader);
  if (header.alg !== ALG) throw new JwsRejected('algorithm');
  // Nothing this server issues is critical or unencoded; a token that says so is not ours.
  if ('crit' in header || 'b64' in header) throw new JwsRejected('unsupported_header');
  const key = typeof header.kid === 'string' ? await keyFor(header.kid) : undefined;
  if (!key) throw new JwsRejected('unknown_key');
  const signature = Buffer.from(encodedSignature, 'base64url');
  if (signature.length !== SIGNATURE_BYTES) throw new JwsRejected('signature');
  const input = Buffer.from(`${encodedHeader}.${encodedPayload}`);
  if (!verify('sha256', input, key, joseToDer(signature))) throw new JwsRejected('signature');
  // The payload is read only once the signature holds: unsigned bytes never reach JSON.parse.
  return { header, payload: decodeObject(encodedPayload) };
}

/** ECDSA-Sig-Value (RFC 3279 §2.2.3: SEQUENCE of INTEGER r, INTEGER s, as Node signs) to r ‖ s. */
export function derToJose(der: Buffer): Buffer {
  const out = Buffer.alloc(SIGNATURE_BYTES);
  // P-256's sequence is under 128 bytes: one length byte. Each INTEGER is minimal, with a 0x00
  // before a high bit, so at most 33 bytes: its last 32 (or fewer) are the value.
  let at = 2;
  for (const offset of [0, 32]) {
    const length = der[at + 1]!;
    const value = der.subarray(at + 2, at + 2 + length);
    const trimmed = value.length > 32 ? value.subarray(value.length - 32) : value;
    trimmed.copy(out, offset + 32 - trimmed.length);
    at += 2 + length;
  }
  return out;
}

/** r ‖ s (64 bytes) to the DER Node verifies: each half as a minimal, non-negative INTEGER. */
export function joseToDer(signature: Buffer): Buffer {
  const integer = (half: Buffer) => {
    let start = 0;
    while (start < half.length - 1 && half[start] === 0) start++;
    const value = half.subarray(start);
    return value[0]! & 0x80 ? Buffer.concat([Buffer.from([0x02, value.length + 1, 0]), value]) : Buffer.concat([Buffer.from([0x02, value.length]), value]);
  };
  const body = Buffer.concat([integer(signature.subarray(0, 32)), integer(signature.subarray(32))]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

function encode(value: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function decodeObject(segment: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
  } catch {
    // Not JSON: value stays undefined, which is no object either.
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new JwsRejected('malformed');
  return value as Record<string, unknown>;
}
