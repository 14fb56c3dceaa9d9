import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeBase64OrBase64Url, decodeBase64Url } from '../../../src/methods/passkey/format/base64.ts';

const bytes = Buffer.from([0xfb, 0xff, 0xbf, 0x01]);

describe('Strict base64 for public-key fields', () => {
  it('decodes base64 and base64url, padded or not, to the same bytes', () => {
    for (const text of ['+/+/AQ==', '+/+/AQ', '-_-_AQ==', '-_-_AQ']) assert.deepEqual(decodeBase64OrBase64Url(text), bytes, text);
  });

  it('refuses a mix of alphabets, wrong padding, stray characters and non-canonical trailing bits', () => {
    for (const text of ['+_-/AQ==', '+/+/AQ=', '+/+/AQ===', '+/+/A', '+/+/AQ==AA', '+/+/ AQ', '+/+/AR']) {
      assert.equal(decodeBase64OrBase64Url(text), undefined, text);
    }
  });

  it('takes credential ids only as unpadded base64url', () => {
    assert.deepEqual(decodeBase64Url('-_-_AQ'), bytes);
    for (const text of ['+/+/AQ', '-_-_AQ==', '-_-_AR', '-_-_A']) assert.equal(decodeBase64Url(text), undefined, text);
  });
});
