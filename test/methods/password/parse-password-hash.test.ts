import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../src/errors/api-error.ts';
import { parsePasswordHash } from '../../../src/methods/password/parse-password-hash.ts';

const ARGON2ID = '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc';
const BCRYPT = '$2y$05$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e';
const PBKDF2 = '$pbkdf2-sha256$i=80000,l=64$TmFDbA$TdzY9guYviGDDO5e8icB+WQaRBjQTAQUrv8Ih2s0q1ah1CWhIlgzVJrbhBtRybMXaicr3ruh0HhHj2Kzl/M8jQ';

/** The 400 a refusal must be: INVALID_FIELD naming body.params.password_hash, with `rule` in it. */
function assertRefused(text: string, rule: RegExp): void {
  assert.throws(
    () => parsePasswordHash(text),
    (error: unknown) => {
      assert.ok(error instanceof ApiError, 'an ApiError');
      assert.equal(error.status, 400);
      assert.equal(error.code, 'INVALID_FIELD');
      assert.match(error.message, /^body\.params\.password_hash: /);
      assert.match(error.message, rule);
      return true;
    },
  );
}

describe('parsePasswordHash: accepted formats', () => {
  it('reads an argon2id PHC string: version, costs, salt and hash bytes', () => {
    const hash = parsePasswordHash(ARGON2ID);
    assert.deepEqual(
      { ...hash, salt: hash.salt.toString(), hash: hash.hash.length },
      {
        function: 'argon2id',
        version: 0x13,
        memoryKiB: 65536,
        passes: 2,
        parallelism: 1,
        salt: 'somesalt',
        hash: 32,
      },
    );
  });

  it('reads argon2i with v=16 and the legacy form without v= as version 1.0', () => {
    const explicit = parsePasswordHash('$argon2i$v=16$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ');
    const legacy = parsePasswordHash('$argon2i$m=65536,t=2,p=1$c29tZXNhbHQ$9sTbSlTio3Biev89thdrlKKiCaYsjjYVJxGAL3swxpQ');
    assert.equal(explicit.function, 'argon2i');
    assert.equal(explicit.function === 'argon2i' && explicit.version, 0x10);
    assert.deepEqual(legacy, explicit);
  });

  it('reads every bcrypt version: cost, 16 salt bytes, 23 hash bytes', () => {
    for (const version of ['2', '2a', '2b', '2x', '2y']) {
      const hash = parsePasswordHash(BCRYPT.replace('$2y$', `$${version}$`));
      assert.equal(hash.function, 'bcrypt');
      assert.equal(hash.function === 'bcrypt' && hash.version, version);
      assert.equal(hash.function === 'bcrypt' && hash.cost, 5);
      assert.equal(hash.salt.length, 16);
      assert.equal(hash.hash.length, 23);
    }
  });

  it('reads the service pbkdf2 format for sha1, sha256 and sha512', () => {
    const hash = parsePasswordHash(PBKDF2);
    assert.deepEqual(
      { ...hash, salt: hash.salt.toString(), hash: hash.hash.length },
      {
        function: 'pbkdf2',
        version: 'sha256',
        iterations: 80000,
        keyLength: 64,
        salt: 'NaCl',
        hash: 64,
      },
    );
    assert.equal(parsePasswordHash('$pbkdf2-sha1$i=1,l=20$c2FsdA$DGDID5YfDnHzqbUkr2ASBi/gN6Y').version, 'sha1');
  });
});

describe('parsePasswordHash: refusals name the field and the rule, never the hash', () => {
  const unlisted: Array<[string, string, RegExp]> = [
    ['md5-crypt', '$1$saltsalt$qjXMvbEw8oaL.CzflDugX/', /md5-crypt \(\$1\$\) is not an accepted function/],
    ["Apache's md5", '$apr1$saltsalt$2bV4ZZlGLFW1rrYw37E4p.', /apr1/],
    ['sha256-crypt', '$5$saltsalt$Gcm6FsVtF/Qa77ZKD.iwsJlCVPY0XSMgLJL0Hnww/c1', /sha256-crypt/],
    ['sha512-crypt', '$6$saltsalt$qFmFH.bQmmtXzyBY0s9v7Oicd2z4XSIecDzlB5KiA2/jctKu9YterLp8wwnSq.qc.eoxqOmSuNp2xS0ktL3nh/', /sha512-crypt/],
    ['scrypt', '$scrypt$ln=16,r=8,p=1$aM15713r3Xsvxbi31lqr1Q$nFNh2CVHVjNldFVKDHDlm4CbdRSCdEBsjjJxD+iCs5E', /scrypt is not an accepted function/],
    ['argon2d', '$argon2d$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc', /argon2d is not an accepted function/],
    ['an unknown scheme', '$whirlpool$abc', /is not a hash of an accepted function/],
    ['plain text', 'hunter2', /plain text/],
    ['pbkdf2 without a digest', '$pbkdf2$i=1,l=20$c2FsdA$DGDID5YfDnHzqbUkr2ASBi/gN6Y', /must name its digest/],
  ];
  for (const [name, text, rule] of unlisted) {
    it(`refuses ${name}, listing the accepted functions`, () => {
      assertRefused(text, rule);
      assertRefused(text, /accepted functions: argon2i and argon2id .*bcrypt .*pbkdf2/);
    });
  }

  it('never quotes the text it refuses (a plain-text import would echo a password)', () => {
    const secret = 'my-secret-password';
    assert.throws(
      () => parsePasswordHash(secret),
      (error: Error) => !error.message.includes(secret),
    );
  });

  it('refuses version parts outside [a-z0-9], and bcrypt versions that do not exist', () => {
    assertRefused(BCRYPT.replace('$2y$', '$2Y$'), /version part may contain only \[a-z0-9\]/);
    assertRefused(BCRYPT.replace('$2y$', '$2{$'), /version part may contain only \[a-z0-9\]/);
    assertRefused(PBKDF2.replace('sha256', 'SHA256'), /version part may contain only \[a-z0-9\]/);
    assertRefused(PBKDF2.replace('sha256', 'sha-256'), /version part may contain only \[a-z0-9\]/);
    assertRefused(BCRYPT.replace('$2y$', '$2c$'), /bcrypt version 2c is not one of 2, 2a, 2b, 2x, 2y/);
    assertRefused(BCRYPT.replace('$2y$', '$2z$'), /bcrypt version 2z/);
    assertRefused(PBKDF2.replace('sha256', 'md5'), /pbkdf2 digest md5 is not one of sha1, sha256, sha512/);
  });

  it('refuses truncated PHC strings and hashes at every cut', () => {
    for (const whole of [ARGON2ID, BCRYPT, PBKDF2]) {
      for (const cut of [whole.indexOf('$', 1), whole.lastIndexOf('$'), whole.length - 1, whole.length - 5]) {
        assert.throws(() => parsePasswordHash(whole.slice(0, cut)), ApiError, `${whole.slice(0, 12)}… cut at ${cut}`);
      }
    }
    assertRefused(ARGON2ID.slice(0, ARGON2ID.lastIndexOf('$')), /truncated argon2id PHC string/);
    assertRefused('$argon2i$v=19$m=65536,t=2,p=1', /truncated argon2i PHC string/);
    assertRefused('$2b$05$', /bcrypt salt and hash must be 53 characters/);
    assertRefused('$2b$05', /truncated bcrypt hash/);
    assertRefused('$pbkdf2-sha1$i=1,l=20$c2FsdA', /truncated pbkdf2 hash/);
    assertRefused(`${ARGON2ID}$extra`, /more \$-separated parts/);
  });

  it('refuses bad base64: other alphabets, padding, impossible lengths, non-zero unused bits', () => {
    assertRefused(ARGON2ID.replace('$c29tZXNhbHQ$', '$c29tZXNhbHQ=$'), /argon2id salt is not PHC base64/);
    assertRefused(ARGON2ID.replace('$c29tZXNhbHQ$', '$c29tZXNhbHR$'), /argon2id salt is not PHC base64/);
    assertRefused(ARGON2ID.replace('$c29tZXNhbHQ$', '$c29tZXNhbHQaa$'), /argon2id salt is not PHC base64/);
    assertRefused(ARGON2ID.replace(/.$/, '-'), /argon2id hash is not PHC base64/);
    assertRefused(PBKDF2.replace('$TmFDbA$', '$TmF_bA$'), /pbkdf2 salt is not PHC base64/);
    assertRefused(BCRYPT.replace('/OK.fbVrR', '+OK.fbVrR'), /bcrypt salt is not bcrypt base64/);
    assertRefused(BCRYPT.replace('F.CE5', 'F/CE5'), /bcrypt salt is not bcrypt base64/);
    assertRefused(BCRYPT.replace(/e$/, 'f'), /bcrypt hash is not bcrypt base64/);
  });

  it('refuses bcrypt costs outside 04–31 and costs not written as two digits', () => {
    assertRefused(BCRYPT.replace('$05$', '$03$'), /bcrypt cost must be between 04 and 31, not 03/);
    assertRefused(BCRYPT.replace('$05$', '$32$'), /bcrypt cost must be between 04 and 31, not 32/);
    assertRefused(BCRYPT.replace('$05$', '$00$'), /between 04 and 31/);
    assertRefused(BCRYPT.replace('$05$', '$5$'), /bcrypt cost must be two digits/);
    assertRefused(BCRYPT.replace('$05$', '$1a$'), /bcrypt cost must be two digits/);
  });

  it('refuses wrong lengths: bcrypt body, argon2 salt and tag, pbkdf2 key length against the hash', () => {
    assertRefused(`${BCRYPT}x`, /53 characters \(22 \+ 31\), not 54/);
    assertRefused(BCRYPT.slice(0, -1), /not 52/);
    assertRefused(ARGON2ID.replace('$c29tZXNhbHQ$', '$c2FsdA$'), /argon2id salt must be 8–64 bytes, not 4/);
    assertRefused('$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm', /argon2id hash must be 16–64 bytes, not 15/);
    assertRefused(PBKDF2.replace('l=64', 'l=32'), /pbkdf2 hash is 64 bytes but l=32/);
    assertRefused('$pbkdf2-sha1$i=1,l=8$c2FsdA$DGDID5YfDnE', /key length l must be at least 16 bytes/);
  });

  it('refuses malformed argon2 and pbkdf2 parameters', () => {
    assertRefused(ARGON2ID.replace('v=19', 'v=18'), /argon2 version must be v=19 \(1\.3\) or v=16/);
    assertRefused(ARGON2ID.replace('m=65536,t=2,p=1', 't=2,m=65536,p=1'), /m=<KiB>,t=<passes>,p=<lanes> in this order/);
    assertRefused(ARGON2ID.replace('m=65536', 'm=065536'), /in this order, decimal/);
    assertRefused(ARGON2ID.replace('p=1', 'p=1,keyid=abc'), /nothing else/);
    assertRefused(ARGON2ID.replace('t=2', 't=0'), /t \(passes\) must be at least 1/);
    assertRefused(ARGON2ID.replace('p=1', 'p=0'), /p \(lanes\) must be at least 1/);
    assertRefused(ARGON2ID.replace('m=65536', 'm=15').replace('p=1', 'p=2'), /at least 8 KiB per lane/);
    assertRefused(PBKDF2.replace('i=80000,l=64', 'l=64,i=80000'), /i=<iterations>,l=<key length in bytes>/);
    assertRefused(PBKDF2.replace('i=80000', 'i=0'), /positive decimals/);
  });
});
