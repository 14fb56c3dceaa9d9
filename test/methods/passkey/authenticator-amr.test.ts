import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { amrOfAssertion } from '../../../src/methods/passkey/authenticator-amr.ts';

/** An assertion whose authenticator data carries these flags (32 bytes of rpIdHash before them). */
function withFlags(flags: number) {
  const authenticatorData = Buffer.concat([Buffer.alloc(32), Buffer.from([flags]), Buffer.alloc(4)]).toString('base64url');
  return { id: 'x', type: 'public-key', response: { authenticatorData } };
}

describe('The amr of a passkey login', () => {
  it('is hwk for a device-bound credential (BE clear)', () => {
    assert.equal(amrOfAssertion(withFlags(0x05)), 'hwk');
  });

  it('is swk for a backup-eligible (synced) credential, backed up or not', () => {
    assert.equal(amrOfAssertion(withFlags(0x05 | 0x08)), 'swk');
    assert.equal(amrOfAssertion(withFlags(0x05 | 0x08 | 0x10)), 'swk');
  });

  it('is a fault of the caller when there are no flags to read', () => {
    assert.throws(() => amrOfAssertion({ response: { authenticatorData: Buffer.alloc(32).toString('base64url') } }), /shorter than its flags/);
    assert.throws(() => amrOfAssertion({}), /has authenticatorData/);
  });
});
