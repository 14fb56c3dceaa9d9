import { readFileSync } from 'node:fs';
import type { CredentialTypeContext, PreparedCredential } from '../../../src/credentials/credential-type.ts';
import { encodeBase32 } from '../../../src/methods/totp/base32.ts';
import type { TotpAlgorithm } from '../../../src/methods/totp/limits.ts';
import { totpCredentialType } from '../../../src/methods/totp/type.ts';

/** One published TOTP code: the key, the credential's parameters, the instant and the code. */
export interface TotpVector {
  name: string;
  key: Buffer;
  algorithm: TotpAlgorithm;
  digits: number;
  period: number;
  unixSeconds: number;
  code: string;
}

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8'));

/** RFC 6238 Appendix B: 8 digits, 30 seconds, the RFC's ASCII seeds. */
export function rfc6238Vectors(): TotpVector[] {
  const rfc = fixture('rfc6238-appendix-b.json');
  return rfc.vectors.map((vector: { unix_seconds: number; algorithm: TotpAlgorithm; code: string }) => ({
    name: `RFC 6238 ${vector.algorithm} at ${vector.unix_seconds}`,
    key: Buffer.from(rfc.seeds[vector.algorithm], 'ascii'),
    algorithm: vector.algorithm,
    digits: rfc.digits,
    period: rfc.period,
    unixSeconds: vector.unix_seconds,
    code: vector.code,
  }));
}

/** oathtool's codes, made by fixtures/make-oathtool-vectors.sh. */
export function oathtoolVectors(): TotpVector[] {
  return fixture('oathtool-vectors.json').vectors.map(
    (vector: { algorithm: TotpAlgorithm; digits: number; period: number; unix_seconds: number; key_hex: string; code: string; command: string }) => ({
      name: vector.command,
      key: Buffer.from(vector.key_hex, 'hex'),
      algorithm: vector.algorithm,
      digits: vector.digits,
      period: vector.period,
      unixSeconds: vector.unix_seconds,
      code: vector.code,
    }),
  );
}

/** The vector's key imported as a credential through the type's own prepare, as the API would. */
export function storedFor(
  vector: Pick<TotpVector, 'key' | 'algorithm' | 'digits' | 'period'>,
  context: CredentialTypeContext,
  codes: string[] = [],
): Promise<PreparedCredential> {
  const keyUri = `otpauth://totp/Vectors:alice?secret=${encodeBase32(vector.key)}&issuer=Vectors&algorithm=${vector.algorithm}&digits=${vector.digits}&period=${vector.period}`;
  return totpCredentialType.prepare({ key_uri: keyUri, recovery_codes_total: codes.length, unused_recovery_codes: codes }, context);
}
