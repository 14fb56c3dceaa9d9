import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseKeyUri } from '../../../src/methods/totp/key-uri.ts';
import { invalid } from './test-context.ts';

/** "12345678901234567890" (RFC 6238's SHA1 seed) in Base32. */
const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const FIELD = 'body.params.key_uri';
const rejects = (uri: string, ...fragments: string[]) => assert.throws(() => parseKeyUri(uri), invalid(FIELD, ...fragments), uri);

describe('Key URI: accepted', () => {
  it('applies the defaults SHA1, 6 digits, 30 seconds', () => {
    const key = parseKeyUri(`otpauth://totp/alice@example.com?secret=${SECRET}`);
    assert.deepEqual(
      { ...key, secret: Buffer.from(key.secret).toString() },
      {
        issuer: undefined,
        accountName: 'alice@example.com',
        secret: '12345678901234567890',
        algorithm: 'SHA1',
        digits: 6,
        period: 30,
      },
    );
  });

  it('reads every part of a full URI, percent-decoded as RFC 3986 (a "+" stays a "+")', () => {
    const key = parseKeyUri(`otpauth://totp/ACME%20Co%2B:alice%40example.com?secret=${SECRET}&issuer=ACME%20Co+&algorithm=SHA512&digits=8&period=60`);
    assert.equal(key.issuer, 'ACME Co+');
    assert.equal(key.accountName, 'alice@example.com');
    assert.equal(key.algorithm, 'SHA512');
    assert.equal(key.digits, 8);
    assert.equal(key.period, 60);
  });

  it('takes the issuer from the prefix or the parameter when only one is given', () => {
    assert.equal(parseKeyUri(`otpauth://totp/Example:alice?secret=${SECRET}`).issuer, 'Example');
    assert.equal(parseKeyUri(`otpauth://totp/alice?secret=${SECRET}&issuer=Example`).issuer, 'Example');
  });

  it('accepts a %3A separator and spaces before the account name', () => {
    const key = parseKeyUri(`otpauth://totp/Example%3A%20%20alice?secret=${SECRET}&issuer=Example`);
    assert.equal(key.issuer, 'Example');
    assert.equal(key.accountName, 'alice');
  });

  it('accepts lower-case Base32, algorithm names and scheme, as issuers write them', () => {
    const key = parseKeyUri(`OTPAUTH://TOTP/alice?secret=${SECRET.toLowerCase()}&algorithm=sha256`);
    assert.equal(Buffer.from(key.secret).toString(), '12345678901234567890');
    assert.equal(key.algorithm, 'SHA256');
  });

  it('ignores parameters it does not know, such as image, and empty segments', () => {
    const key = parseKeyUri(`otpauth://totp/alice?secret=${SECRET}&image=https%3A%2F%2Fexample.com%2Flogo.png&color=red&&period=45`);
    assert.equal(key.period, 45);
  });

  it('accepts an 80-bit secret and the 300-second period, the bounds', () => {
    assert.equal(parseKeyUri('otpauth://totp/alice?secret=GEZDGNBVGY3TQOJQ&period=300').secret.length, 10);
    assert.equal(parseKeyUri(`otpauth://totp/alice?secret=${SECRET}&period=1`).period, 1);
  });
});

describe('Key URI: refused, naming the part and the rule', () => {
  it('refuses padding in the secret, literal or percent-encoded', () => {
    rejects('otpauth://totp/alice?secret=GEZDGNBVGY3TQOJQGE======', 'secret', 'without padding');
    rejects('otpauth://totp/alice?secret=GEZDGNBVGY3TQOJQGE%3D%3D%3D%3D%3D%3D', 'secret', 'without padding');
  });

  it('refuses invalid Base32: characters outside A–Z 2–7, impossible lengths', () => {
    rejects('otpauth://totp/alice?secret=GEZDGNBVGY3TQOJ0GEZDGNBV', 'secret', 'A–Z', '2–7');
    rejects('otpauth://totp/alice?secret=GEZDGNBVGY3TQOJ1GEZDGNBV', 'secret', 'Base32');
    rejects('otpauth://totp/alice?secret=GEZD-GNBV-GY3T-QOJQ', 'secret', 'Base32');
    rejects('otpauth://totp/alice?secret=GEZDGNBVGY3TQOJQG', 'secret', 'whole bytes');
  });

  it('refuses a secret shorter than 80 bits or longer than 1024', () => {
    rejects('otpauth://totp/alice?secret=GEZDGNBVGY3TQOI', 'secret', 'at least 80 bits');
    rejects(`otpauth://totp/alice?secret=${'A'.repeat(208)}`, 'secret', 'at most 1024 bits');
  });

  it('refuses a missing or empty secret', () => {
    rejects('otpauth://totp/alice?issuer=Example', 'secret is required');
    rejects('otpauth://totp/alice?secret=&issuer=Example', 'secret is required');
    rejects('otpauth://totp/alice', 'secret is required');
  });

  it('refuses digits other than 6 or 8', () => {
    for (const digits of ['7', '10', '06', '', 'six']) rejects(`otpauth://totp/alice?secret=${SECRET}&digits=${digits}`, 'digits', '6 or 8');
  });

  it('refuses a period that is not a whole number of seconds from 1 to 300', () => {
    for (const period of ['0', '-30', '30.5', '1e2', '030', '301', '']) rejects(`otpauth://totp/alice?secret=${SECRET}&period=${period}`, 'period', '1 to 300');
  });

  it('refuses algorithms other than SHA1, SHA256, SHA512', () => {
    for (const algorithm of ['MD5', 'SHA224', 'SHA-1', ''])
      rejects(`otpauth://totp/alice?secret=${SECRET}&algorithm=${algorithm}`, 'algorithm', 'SHA1, SHA256, SHA512');
  });

  it('refuses hotp and other types', () => {
    rejects(`otpauth://hotp/alice?secret=${SECRET}&counter=0`, 'type', 'hotp');
    rejects(`otpauth://motp/alice?secret=${SECRET}`, 'type must be totp');
  });

  it('refuses an issuer prefix and parameter that differ after decoding', () => {
    rejects(`otpauth://totp/Example:alice?secret=${SECRET}&issuer=Other`, 'issuer', 'must equal the issuer prefix');
    rejects(`otpauth://totp/Example:alice?secret=${SECRET}&issuer=example`, 'issuer', 'must equal');
    assert.equal(parseKeyUri(`otpauth://totp/Ex%61mple:alice?secret=${SECRET}&issuer=Exampl%65`).issuer, 'Example');
  });

  it('refuses a repeated parameter', () => {
    rejects(`otpauth://totp/alice?secret=${SECRET}&secret=${SECRET}`, 'secret', 'once');
    rejects(`otpauth://totp/alice?secret=${SECRET}&digits=6&digits=8`, 'digits', 'once');
    rejects(`otpauth://totp/Example:alice?secret=${SECRET}&issuer=Example&issuer=Example`, 'issuer', 'once');
  });

  it('refuses what is not a URI, or not an otpauth one', () => {
    rejects('not a uri', 'key_uri must be a URI');
    rejects('', 'key_uri must be a URI');
    rejects(`otpauth://totp/alice smith?secret=${SECRET}`, 'percent-encoded');
    rejects(`otpauth://totp/alice?secret=${SECRET}&issuer=%E9`, 'query', 'UTF-8');
    rejects(`otpauth://totp/alice?secret=${SECRET}&issuer=100%`, 'two hexadecimal digits');
    rejects(`otpauth://totp/alice?secret=${SECRET}#fragment`, 'fragment');
    rejects(`https://totp/alice?secret=${SECRET}`, 'scheme must be otpauth');
    rejects(`otpauth:totp/alice?secret=${SECRET}`, 'otpauth://totp/');
    rejects(`otpauth://totp/alice?secret=${SECRET}&x=${'a'.repeat(2048)}`, 'at most 2048');
  });

  it('refuses an empty or ambiguous label, and control characters in its parts', () => {
    rejects(`otpauth://totp/?secret=${SECRET}`, 'account name', 'empty');
    rejects(`otpauth://totp/Example:?secret=${SECRET}`, 'account name', 'empty');
    rejects(`otpauth://totp/:alice?secret=${SECRET}`, 'label issuer', 'empty');
    rejects(`otpauth://totp/A:B:alice?secret=${SECRET}`, 'label', 'no other colon');
    rejects(`otpauth://totp/A%3AB:alice?secret=${SECRET}`, 'label', 'no other colon');
    rejects(`otpauth://totp/ali%00ce?secret=${SECRET}`, 'account name', 'control');
    rejects(`otpauth://totp/alice?secret=${SECRET}&issuer=Ex%E2%80%AEample`, 'issuer', 'bidirectional');
    rejects(`otpauth://totp/alice?secret=${SECRET}&issuer=`, 'issuer', 'empty');
    rejects(`otpauth://totp/%FF?secret=${SECRET}`, 'label', 'UTF-8');
  });
});
