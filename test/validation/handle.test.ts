import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalEmailAddress, isEmailAddress } from '../../src/validation/email.ts';
import { canonicalHandle, handleProblem } from '../../src/validation/handle.ts';

const email = (value: string) => ({ type: 'email_address' as const, value });
const phone = (value: string) => ({ type: 'phone_number' as const, value });
const problemOf = (handle: ReturnType<typeof email> | ReturnType<typeof phone>) => handleProblem(canonicalHandle(handle));

describe('Canonical handles', () => {
  it('gives composed and decomposed spellings of an address one form, NFC and lower-cased', () => {
    const composed = 'Jos\u00e9@Example.COM';
    const decomposed = 'Jose\u0301@EXAMPLE.com';
    assert.notEqual(composed, decomposed);
    assert.equal(canonicalEmailAddress(composed), 'jos\u00e9@example.com');
    assert.equal(canonicalEmailAddress(decomposed), 'jos\u00e9@example.com');
    assert.deepEqual(canonicalHandle(email(decomposed)), email('jos\u00e9@example.com'));
  });

  it('lower-cases the local part too, and is idempotent', () => {
    for (const value of ['Grace.Hopper@Example.com', '\u0130stanbul@example.com', 'ANGSTR\u00d6M@example.com']) {
      const once = canonicalEmailAddress(value);
      assert.equal(once, once.toLowerCase());
      assert.equal(canonicalEmailAddress(once), once);
      assert.equal(once, once.normalize('NFC'));
    }
  });

  it('leaves phone numbers as given: they are refused, not repaired', () => {
    assert.deepEqual(canonicalHandle(phone('+14155550100')), phone('+14155550100'));
    assert.deepEqual(canonicalHandle(phone('0041 44 668 18 00')), phone('0041 44 668 18 00'));
  });
});

describe('Handle rules', () => {
  it('accepts ordinary and internationalised addresses', () => {
    for (const value of [
      'ada@example.com',
      'Jos\u00e9@example.com',
      '\u0438\u0432\u0430\u043d@example.com',
      'tanaka\u7530\u4e2d@example.jp',
      'a.b+tag@sub.example.org',
      'ada@xn--bcher-kva.example',
    ]) {
      assert.equal(problemOf(email(value)), undefined, value);
    }
  });

  const invisible = [
    0x00, 0x09, 0x7f, 0x061c, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2060, 0x2066, 0x2067, 0x2068, 0x2069, 0xfeff,
    0xad,
  ];
  for (const cp of invisible) {
    const name = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    it(`refuses ${name} in an address or a phone number, naming it`, () => {
      const rule = `must not contain control or format characters such as zero-width or bidirectional marks (found ${name})`;
      assert.equal(problemOf(email(`ad${String.fromCodePoint(cp)}a@example.com`)), rule);
      assert.equal(problemOf(phone(`+1415555${String.fromCodePoint(cp)}0100`)), rule);
    });
  }

  it('refuses unassigned, private-use and unpaired surrogate code points', () => {
    for (const [char, name] of [
      ['\ue000', 'U+E000'],
      ['\ud800', 'U+D800'],
      ['\u{10ffff}', 'U+10FFFF'],
      ['\u0378', 'U+0378'],
    ]) {
      assert.equal(
        problemOf(email(`a${char}@example.com`)),
        `must contain only assigned Unicode characters, no private-use code points or unpaired surrogates (found ${name})`,
      );
    }
  });

  it('refuses a label that mixes scripts, in the local part or the domain, naming where', () => {
    const rule = (where: string, scripts: string) => `must not mix scripts within one label (${where} mixes ${scripts}; UTS #39 "Highly Restrictive")`;
    assert.equal(problemOf(email('p\u0430ypal@example.com')), rule('local part label 1', 'Cyrillic, Latin'));
    assert.equal(problemOf(email('john.p\u0430ypal@example.com')), rule('local part label 2', 'Cyrillic, Latin'));
    assert.equal(problemOf(email('ada@xn--pypal-4ve.com')), rule('domain label 1', 'Cyrillic, Latin'), 'an A-label is checked as it displays');
    assert.equal(problemOf(email('\u0438\u0432\u0430\u043d.ivan@example.com')), undefined, 'each label may have its own script');
  });

  it('keeps the domain ASCII: a Unicode domain must come as A-labels', () => {
    assert.equal(problemOf(email('ada@b\u00fccher.example')), 'must be an email address (local@domain.tld)');
  });

  it('accepts E.164 phone numbers only', () => {
    assert.equal(problemOf(phone('+14155550100')), undefined);
    assert.equal(problemOf(phone('+123456789012345')), undefined, '15 digits');
    for (const value of ['0041446681800', '+0415550100', '+1 415 555 0100', '+1234567890123456', '14155550100', '+1415555010a', '\uff0b14155550100']) {
      assert.equal(problemOf(phone(value)), 'must be an E.164 phone number (+ then 7 to 15 digits, e.g. +14155550100)', value);
    }
  });

  it('lets isEmailAddress apply every rule to a value given in any case', () => {
    assert.equal(isEmailAddress('No-Reply@Example.ORG'), true);
    assert.equal(isEmailAddress('no-reply\u200b@example.org'), false);
    assert.equal(isEmailAddress('p\u0430ypal@example.org'), false);
  });
});
