import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { decodeBcryptBase64, encodeBcryptBase64 } from '../../../src/methods/password/bcrypt-base64.ts';
import { cryptBlowfish } from '../../../src/methods/password/legacy-verification/crypt-blowfish.ts';
import { HashWorkPool } from '../../../src/methods/password/threads/hash-work-pool.ts';
import { verifyPassword } from '../../../src/methods/password/verify-password.ts';
import { readFixture } from './fixtures.ts';

const nativeBcrypt = createRequire(import.meta.url)('bcrypt') as { hash(data: Buffer | string, salt: string): Promise<string> };
const pool = new HashWorkPool();
const SALT = '$04$abcdefghijklmnopqrstuu';
const made = (version: string, password: Buffer | string) => nativeBcrypt.hash(password, `$${version}${SALT}`);

describe('bcrypt variants', () => {
  it('read only the first 72 bytes of a long password, in every version', async () => {
    const long = Buffer.from('x'.repeat(72));
    for (const version of ['2a', '2b', '2x', '2y']) {
      const hash = (await made('2b', long)).replace('$2b$', `$${version}$`);
      assert.equal(await verifyPassword(hash, Buffer.concat([long, Buffer.from('ignored')]), pool), true, `${version}: bytes after 72 ignored`);
      assert.equal(await verifyPassword(hash, long.subarray(0, 71), pool), false, `${version}: the 72nd byte counts`);
    }
    const originalHash = await made('2', long);
    assert.equal(await verifyPassword(originalHash, Buffer.concat([long, Buffer.from('ignored')]), pool), true, '$2$: bytes after 72 ignored');
  });

  it('the openwall 72-byte vectors: 8-bit bytes past 72 are ignored in $2a$ too', async () => {
    const { vectors } = readFixture<{ vectors: Array<{ hash: string; password_hex: string }> }>('openwall-crypt-blowfish.json');
    const past72 = vectors.filter((v) => v.password_hex.length > 144);
    assert.equal(past72.length, 2);
    for (const vector of past72) {
      const first72 = Buffer.from(vector.password_hex, 'hex').subarray(0, 72);
      assert.equal(await verifyPassword(vector.hash, first72, pool), true);
    }
  });

  it('$2$ is OpenBSD 1997: the key without its NUL, unlike $2a$ ("ab" and "abab" collide)', async () => {
    const original = await made('2', 'ab');
    assert.equal(await verifyPassword(original, 'ab', pool), true);
    assert.equal(await verifyPassword(original, 'abab', pool), true, 'the flaw $2a$ was made to fix');
    const fixed = await made('2a', 'ab');
    assert.equal(await verifyPassword(fixed, 'abab', pool), false);
  });

  it('stops at the first NUL, as C crypt() does', async () => {
    const hash = await made('2b', 'abc');
    assert.equal(await verifyPassword(hash, Buffer.from('abc\0def'), pool), true);
    const bugged = `$2x$05$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e`;
    assert.equal(await verifyPassword(bugged, Buffer.from([0xa3, 0, 0x41]), pool), true, 'the JavaScript path as well');
  });

  it('the JavaScript crypt_blowfish equals the native binding for ASCII and for $2b$ 8-bit passwords', async () => {
    const passwords = ['', 'a', 'U*U', 'password', 'x'.repeat(80), Buffer.from([0xc3, 0xa4, 0xff, 0x80, 0x41])];
    for (const password of passwords) {
      const hash = await made('2b', password);
      const salt = decodeBcryptBase64(hash.slice(7, 29), 16)!;
      const bytes = typeof password === 'string' ? Buffer.from(password) : password;
      assert.equal(encodeBcryptBase64(cryptBlowfish(bytes, salt, 4, 'correct')), hash.slice(29));
      if (!bytes.some((b) => b >= 0x80)) {
        assert.equal(encodeBcryptBase64(cryptBlowfish(bytes, salt, 4, 'sign-extension-bug')), hash.slice(29), '$2x$ = $2a$ for ASCII');
        assert.equal(encodeBcryptBase64(cryptBlowfish(bytes, salt, 4, 'bug-safety')), hash.slice(29));
      }
    }
  });

  it('$2a$ and $2x$ with 8-bit passwords run off the event loop, in a worker', async () => {
    const hash = '$2x$10$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e';
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      await verifyPassword(hash, Buffer.from([0xa3]), pool);
    } finally {
      clearInterval(timer);
    }
    assert.ok(ticks >= 3, `the event loop turned ${ticks} times during a cost-10 JavaScript bcrypt`);
  });
});
