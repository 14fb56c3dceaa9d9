import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crossOriginRefusal } from '../../../src/methods/passkey/cross-origin.ts';

/** An answer whose clientDataJSON is `clientData` (JSON text, or a value to serialise). */
const answer = (clientData: unknown) => ({
  response: { clientDataJSON: Buffer.from(typeof clientData === 'string' ? clientData : JSON.stringify(clientData)).toString('base64url') },
});
const SAME_ORIGIN = { type: 'webauthn.get', challenge: 'AAAA', origin: 'https://login.example.com' };
const IFRAME = 'the ceremony ran in a cross-origin iframe (clientDataJSON.crossOrigin is true), which this service never expects';

describe('The cross-origin check of a verified answer (W3C WebAuthn L3 §7.1, §7.2: crossOrigin, topOrigin)', () => {
  it('passes a same-origin answer, with crossOrigin false or absent (browsers before Level 2 leave it out)', () => {
    assert.equal(crossOriginRefusal(answer({ ...SAME_ORIGIN, crossOrigin: false })), undefined);
    assert.equal(crossOriginRefusal(answer(SAME_ORIGIN)), undefined);
  });

  it('refuses crossOrigin true, and names it', () => {
    assert.equal(crossOriginRefusal(answer({ ...SAME_ORIGIN, crossOrigin: true })), IFRAME);
    assert.equal(crossOriginRefusal(answer({ ...SAME_ORIGIN, crossOrigin: true, topOrigin: 'https://example.com' })), IFRAME);
  });

  it('takes only the JSON true as true: the spec says "present and set to true"', () => {
    for (const value of ['true', 1, null, {}])
      assert.equal(crossOriginRefusal(answer({ ...SAME_ORIGIN, crossOrigin: value })), undefined, JSON.stringify(value));
  });

  it('refuses any topOrigin member, whatever crossOrigin says and whatever its value, quoting it (cut to 200 characters)', () => {
    assert.equal(
      crossOriginRefusal(answer({ ...SAME_ORIGIN, crossOrigin: false, topOrigin: 'https://evil.example' })),
      'the ceremony ran in a cross-origin iframe under the top origin "https://evil.example" (clientDataJSON.topOrigin), which this service never expects',
    );
    assert.match(
      crossOriginRefusal(answer({ ...SAME_ORIGIN, topOrigin: null })) ?? '',
      /^the ceremony ran in a cross-origin iframe under the top origin null /,
    );
    const long = `https://${'a'.repeat(300)}.example`;
    assert.ok(crossOriginRefusal(answer({ ...SAME_ORIGIN, topOrigin: long }))?.includes(` ${JSON.stringify(long).slice(0, 200)} (clientDataJSON.topOrigin)`));
  });

  it('refuses a clientDataJSON it cannot read as a JSON object rather than passing it', () => {
    for (const response of [
      answer('not json'),
      answer('[]'),
      answer('null'),
      answer('"text"'),
      { response: {} },
      { response: { clientDataJSON: 7 } },
      null,
      undefined,
    ]) {
      assert.equal(crossOriginRefusal(response), 'the clientDataJSON is not a JSON object', JSON.stringify(response));
    }
  });
});
