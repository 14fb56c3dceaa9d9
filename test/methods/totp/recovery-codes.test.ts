import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchRecoveryCode, RECOVERY_CODE_ALPHABET, recoveryCodeProblem, recoveryCodes } from '../../../src/methods/totp/recovery-codes.ts';
import { withoutRecoveryCode } from '../../../src/methods/totp/stored.ts';
import { totpCredentialType } from '../../../src/methods/totp/type.ts';
import { testContext } from './test-context.ts';
import { rfc6238Vectors, storedFor } from './vectors.ts';

const { context } = testContext();
const IMPORTED = ['ABCDE-FGHJK', '12345678', 'mnpqr stvwx'];
const stored = () => storedFor(rfc6238Vectors()[0]!, context, IMPORTED);

describe('Recovery codes: matching', () => {
  it('finds each unused code, returning its index and stored hash', async () => {
    const credential = await stored();
    const hashes = credential.secret!.recovery_code_hashes as string[];
    IMPORTED.forEach((code, index) => {
      assert.deepEqual(matchRecoveryCode(code, credential, context), { index, hash: hashes[index] });
    });
  });

  it('compares without case, spaces or hyphens, as people type them', async () => {
    const credential = await stored();
    for (const typed of ['abcde-fghjk', 'ABCDEFGHJK', 'abcde fghjk', ' ABCDE - FGHJK ', '1234-5678']) {
      assert.notEqual(matchRecoveryCode(typed, credential, context), undefined, typed);
    }
  });

  it('finds nothing for other codes, other characters or oversized input', async () => {
    const credential = await stored();
    for (const typed of ['ABCDE-FGHJL', '1234567', '123456789', '', 'ÀBCDE-FGHJK', 'A'.repeat(10_000)]) {
      assert.equal(matchRecoveryCode(typed, credential, context), undefined, typed.slice(0, 20));
    }
  });

  it('regression: non-ASCII spellings matched (Unicode spaces stripped, long s upper-cased to S); now any non-ASCII character matches nothing', async () => {
    const credential = await stored();
    const lookAlikes = [
      'mnpqr \u017ftvwx', // U+017F LATIN SMALL LETTER LONG S: toUpperCase() gives S
      'MNPQR\u00a0STVWX', // U+00A0 NO-BREAK SPACE: \s stripped it
      'ABCDE\u3000FGHJK', // U+3000 IDEOGRAPHIC SPACE
      'ABCDE\u2010FGHJK', // U+2010 HYPHEN
      '\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18', // fullwidth 12345678: NFKC would fold them
      '12345678\u200b', // a zero-width space after a right code
    ];
    for (const typed of lookAlikes) assert.equal(matchRecoveryCode(typed, credential, context), undefined, JSON.stringify(typed));
  });

  it('regression: any whitespace was stripped; now only spaces and hyphens are, so other ASCII separators match nothing', async () => {
    const credential = await stored();
    for (const typed of ['1234\t5678', '1234\n5678', '1234_5678', '1234.5678']) {
      assert.equal(matchRecoveryCode(typed, credential, context), undefined, JSON.stringify(typed));
    }
  });

  it('finds a code no more once it is removed, and the unused count goes down', async () => {
    const credential = await stored();
    const match = matchRecoveryCode('12345678', credential, context)!;
    const after = withoutRecoveryCode(credential, match.hash);
    assert.equal(matchRecoveryCode('12345678', after, context), undefined);
    assert.notEqual(matchRecoveryCode('ABCDE-FGHJK', after, context), undefined);
    assert.deepEqual(totpCredentialType.present(after), { recovery_codes_total: 3, recovery_codes_unused: 2 });
    assert.deepEqual(after.params, credential.params);
  });

  it('needs the same service secret: a hash made under another key matches nothing', async () => {
    const other = testContext('another service secret, also thirty-two characters long').context;
    assert.equal(matchRecoveryCode('12345678', await stored(), other), undefined);
  });
});

describe('Recovery codes: generation', () => {
  const FORMAT = new RegExp(`^[${RECOVERY_CODE_ALPHABET}]{5}-[${RECOVERY_CODE_ALPHABET}]{5}$`);

  it('makes the number asked for, as XXXXX-XXXXX from the unambiguous alphabet, all different', () => {
    const codes = recoveryCodes(10);
    assert.equal(codes.length, 10);
    for (const code of codes) assert.match(code, FORMAT);
    assert.equal(new Set(codes).size, 10);
  });

  it('draws on the whole alphabet and nothing else (30 symbols, no 0 1 I L O U)', () => {
    assert.equal(RECOVERY_CODE_ALPHABET.length, 30);
    assert.doesNotMatch(RECOVERY_CODE_ALPHABET, /[01ILOU]/);
    const seen = new Set(recoveryCodes(100).join('').replaceAll('-', ''));
    assert.deepEqual([...seen].sort().join(''), [...RECOVERY_CODE_ALPHABET].sort().join(''));
  });

  it('makes codes the credential type accepts and that match after import', async () => {
    const codes = recoveryCodes(12);
    for (const code of codes) assert.equal(recoveryCodeProblem(code), undefined);
    const credential = await storedFor(rfc6238Vectors()[0]!, context, codes);
    assert.deepEqual(matchRecoveryCode(codes[7]!.toLowerCase(), credential, context)?.index, 7);
  });

  it('refuses a count outside 1 to 100', () => {
    for (const count of [0, -1, 1.5, 101, Number.NaN]) assert.throws(() => recoveryCodes(count), RangeError, String(count));
  });
});
