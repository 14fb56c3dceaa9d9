import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { decodeBase32 } from '../../../src/methods/totp/base32.ts';
import { newEnrolment } from '../../../src/methods/totp/enrolment.ts';
import { parseKeyUri } from '../../../src/methods/totp/key-uri.ts';
import { totpCredentialType } from '../../../src/methods/totp/type.ts';
import { verifyTotp } from '../../../src/methods/totp/verify.ts';
import { testContext } from './test-context.ts';

/** RFC 4226 §5.3 and RFC 6238 §4 on node:crypto alone: a second implementation to check against. */
function referenceTotp(key: Uint8Array, algorithm: string, digits: number, period: number, unixSeconds: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(unixSeconds / period)));
  const mac = createHmac(algorithm.toLowerCase(), key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

const NOW_SECONDS = 1_795_464_484; // 2026-11-23 20:08:04 UTC, frozen

describe('TOTP enrolment', () => {
  it('makes a 160-bit key and a key URI with SHA1, 6 digits, 30 seconds that the parser accepts', () => {
    const enrolment = newEnrolment('ACME Corp', 'alice@example.com');
    const key = parseKeyUri(enrolment.keyUri);
    assert.equal(key.secret.length, 20);
    assert.deepEqual(key.secret, decodeBase32(enrolment.secret));
    assert.deepEqual([key.issuer, key.accountName, key.algorithm, key.digits, key.period], ['ACME Corp', 'alice@example.com', 'SHA1', 6, 30]);
    assert.match(enrolment.keyUri, /^otpauth:\/\/totp\/ACME%20Corp:alice%40example\.com\?issuer=ACME%20Corp&secret=[A-Z2-7]{32}&/);
  });

  it('makes a different key every time', () => {
    const secrets = new Set(Array.from({ length: 20 }, () => newEnrolment('ACME', 'alice@example.com').secret));
    assert.equal(secrets.size, 20);
  });

  it('honours other parameters and puts an issuer with a colon in the parameter only', () => {
    const key = parseKeyUri(newEnrolment('ACME: Labs', '+14155550100', { algorithm: 'SHA512', digits: 8, period: 60 }).keyUri);
    assert.deepEqual([key.issuer, key.accountName, key.algorithm, key.digits, key.period], ['ACME: Labs', '+14155550100', 'SHA512', 8, 60]);
  });

  it('is confirmed by a first code: prepare the key URI, then verify a code an independent implementation computed', async () => {
    const { context } = testContext();
    for (const options of [{}, { algorithm: 'SHA256' as const, digits: 8 as const, period: 60 }]) {
      const enrolment = newEnrolment('ACME', 'alice@example.com', options);
      const stored = await totpCredentialType.prepare({ key_uri: enrolment.keyUri, recovery_codes_total: 0, unused_recovery_codes: [] }, context);
      const { algorithm, digits, period } = stored.params as { algorithm: string; digits: number; period: number };
      const code = referenceTotp(decodeBase32(enrolment.secret), algorithm, digits, period, NOW_SECONDS);
      assert.equal(verifyTotp(code, stored, context, NOW_SECONDS * 1000), Math.floor(NOW_SECONDS / period));
    }
  });

  it('refuses an empty issuer or account name, a colon in the account name, control characters, a bad period', () => {
    for (const [issuer, account, options] of [
      ['', 'alice@example.com', {}],
      ['ACME', ' ', {}],
      ['ACME', 'alice:admin', {}],
      ['AC\u202eME', 'alice@example.com', {}],
      ['ACME', 'alice@example.com', { period: 0 }],
      ['ACME', 'alice@example.com', { period: 301 }],
    ] as const) {
      assert.throws(() => newEnrolment(issuer, account, options), RangeError, `${issuer} ${account}`);
    }
  });
});
