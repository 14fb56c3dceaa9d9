import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { totpCredentialType } from '../../../src/methods/totp/type.ts';
import { invalid, testContext } from './test-context.ts';

const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const KEY_URI = `otpauth://totp/Example:alice@example.com?secret=${SECRET}&issuer=Example&algorithm=SHA256&digits=8&period=60`;
const valid = () => ({ key_uri: KEY_URI, recovery_codes_total: 10, unused_recovery_codes: ['ABCDE-FGHJK', 'mnpqr stvwx'] });
const prepare = (params: unknown) => totpCredentialType.prepare(params, testContext().context);

describe('TOTP credential type: prepare and present', () => {
  it('keeps algorithm, digits and period, seals the key and hashes the normalised recovery codes', async () => {
    const { context, sealed, hashed } = testContext();
    const stored = await totpCredentialType.prepare(valid(), context);
    assert.deepEqual(stored.params, { recovery_codes_total: 10, algorithm: 'SHA256', digits: 8, period: 60 });
    assert.deepEqual(sealed, [SECRET]);
    assert.deepEqual(hashed, ['ABCDEFGHJK', 'MNPQRSTVWX']);
    assert.equal(context.open(stored.secret!.sealed_key as string), SECRET);
    assert.deepEqual(stored.secret!.recovery_code_hashes, hashed.map(context.hashCode));
  });

  it('stores neither the key nor any recovery code in the clear', async () => {
    const json = JSON.stringify(await prepare(valid()));
    for (const clear of [
      SECRET,
      SECRET.toLowerCase(),
      Buffer.from('12345678901234567890').toString('hex'),
      '12345678901234567890',
      'ABCDE',
      'FGHJK',
      'mnpqr',
      'MNPQR',
    ]) {
      assert.ok(!json.includes(clear), clear);
    }
  });

  it('presents spec §2.3 response params: recovery_codes_total and recovery_codes_unused, nothing else', async () => {
    assert.deepEqual(totpCredentialType.present(await prepare(valid())), { recovery_codes_total: 10, recovery_codes_unused: 2 });
    const none = await prepare({ key_uri: KEY_URI, recovery_codes_total: 0, unused_recovery_codes: [] });
    assert.deepEqual(totpCredentialType.present(none), { recovery_codes_total: 0, recovery_codes_unused: 0 });
  });

  it('seals the same key differently each time', async () => {
    const [first, second] = [await prepare(valid()), await prepare(valid())];
    assert.notEqual(first.secret!.sealed_key, second.secret!.sealed_key);
  });
});

describe('TOTP credential type: bad input is a 400 naming the field', () => {
  const refuses = (params: unknown, field: string, ...fragments: string[]) => assert.rejects(prepare(params), invalid(field, ...fragments));

  it('refuses a total smaller than the list of unused codes', async () => {
    await refuses({ ...valid(), recovery_codes_total: 1 }, 'body.params.recovery_codes_total', 'at least the number of unused_recovery_codes');
  });

  it('refuses duplicate codes, also when they differ only by case, spaces or hyphens', async () => {
    const codes = ['ABCDE-FGHJK', 'MNPQR-STVWX', 'abcde fghjk'];
    await refuses({ ...valid(), unused_recovery_codes: codes }, 'body.params.unused_recovery_codes[2]', 'differ from code 0');
  });

  it('refuses empty, short, oversized and non-printable codes', async () => {
    const at = 'body.params.unused_recovery_codes[1]';
    await refuses({ ...valid(), unused_recovery_codes: ['ABCDE-FGHJK', ''] }, at, 'printable ASCII');
    await refuses({ ...valid(), unused_recovery_codes: ['ABCDE-FGHJK', '1234-567'] }, at, 'at least 8');
    await refuses({ ...valid(), unused_recovery_codes: ['ABCDE-FGHJK', 'A'.repeat(65)] }, at, 'at most 64');
    await refuses({ ...valid(), unused_recovery_codes: ['ABCDE-FGHJK', 'ABCD\u0000EFGH'] }, at, 'printable ASCII');
    await refuses({ ...valid(), unused_recovery_codes: ['ABCDE-FGHJK', 'ABCDÉFGHJK'] }, at, 'printable ASCII');
  });

  it('refuses wrong types, missing fields and unknown fields', async () => {
    await refuses(null, 'body.params', 'object');
    await refuses([], 'body.params', 'object');
    await refuses({ ...valid(), label: 'x' }, 'body.params.label', 'not a TOTP parameter');
    await refuses({ ...valid(), key_uri: undefined }, 'body.params.key_uri', 'non-empty string');
    await refuses({ ...valid(), key_uri: 42 }, 'body.params.key_uri', 'non-empty string');
    await refuses({ ...valid(), recovery_codes_total: '10' }, 'body.params.recovery_codes_total', 'whole number');
    await refuses({ ...valid(), recovery_codes_total: -1 }, 'body.params.recovery_codes_total', 'whole number');
    await refuses({ ...valid(), recovery_codes_total: 2.5 }, 'body.params.recovery_codes_total', 'whole number');
    await refuses({ ...valid(), recovery_codes_total: 101 }, 'body.params.recovery_codes_total', 'from 0 to 100');
    await refuses({ ...valid(), unused_recovery_codes: 'ABCDE-FGHJK' }, 'body.params.unused_recovery_codes', 'array');
    await refuses({ ...valid(), unused_recovery_codes: ['ABCDE-FGHJK', 7] }, 'body.params.unused_recovery_codes[1]', 'string');
    const many = Array.from({ length: 101 }, (_, index) => `CODE-${String(index).padStart(4, '0')}`);
    await refuses({ ...valid(), recovery_codes_total: 100, unused_recovery_codes: many }, 'body.params.unused_recovery_codes', 'at most 100');
  });

  it('passes the key URI rules through: hotp, padding and digits=7 name body.params.key_uri', async () => {
    await refuses({ ...valid(), key_uri: `otpauth://hotp/alice?secret=${SECRET}` }, 'body.params.key_uri', 'type');
    await refuses({ ...valid(), key_uri: 'otpauth://totp/alice?secret=GEZDGNBVGY3TQOJQGE======' }, 'body.params.key_uri', 'padding');
    await refuses({ ...valid(), key_uri: `otpauth://totp/alice?secret=${SECRET}&digits=7` }, 'body.params.key_uri', 'digits');
  });

  it('seals and hashes nothing when it refuses', async () => {
    const { context, sealed, hashed } = testContext();
    await assert.rejects(totpCredentialType.prepare({ ...valid(), recovery_codes_total: 1 }, context));
    await assert.rejects(totpCredentialType.prepare({ ...valid(), key_uri: 'otpauth://totp/alice' }, context));
    assert.deepEqual([sealed, hashed], [[], []]);
  });
});

describe('TOTP credential type: the request schema', () => {
  const check = new Ajv({ strict: false }).compile(totpCredentialType.paramsSchema);

  it('accepts the spec §2.3 request shape', () => {
    assert.ok(check(valid()), JSON.stringify(check.errors));
  });

  it('refuses unknown, missing, mistyped and oversized fields', () => {
    const { unused_recovery_codes: _omitted, ...missing } = valid();
    for (const params of [
      { ...valid(), extra: 1 },
      missing,
      { ...valid(), recovery_codes_total: -1 },
      { ...valid(), recovery_codes_total: 1.5 },
      { ...valid(), key_uri: '' },
      { ...valid(), key_uri: `otpauth://totp/a?secret=${'A'.repeat(2048)}` },
      { ...valid(), unused_recovery_codes: [''] },
      { ...valid(), unused_recovery_codes: ['A'.repeat(65)] },
      { ...valid(), unused_recovery_codes: Array.from({ length: 101 }, () => 'ABCDEFGH') },
    ]) {
      assert.equal(check(params), false, JSON.stringify(params).slice(0, 120));
    }
  });
});
