import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { SoftwareAuthenticator } from '../../../src/dev/software-authenticator.ts';
import { backends } from '../../helpers/backends.ts';
import type { Response } from '../../helpers/service.ts';
import { configurePasskeys, ORIGIN } from '../../methods/passkey/passkeys.ts';
import { assertRefusedNaming, credentialCount, dropPassword, type FuzzTarget, fuzzTarget, httpRuns } from './fuzz-support.ts';

/**
 * A credential's label is free text, given at import, at passkey registration and at TOTP
 * enrolment, stored as text and shown back. Whatever it holds, the answer is the label stored as
 * given or a 400 naming body.label with nothing stored (and, for a passkey, the ceremony intact).
 */

const HASH = '$2y$05$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e';
/** Control, format, unassigned, private-use or unpaired surrogate: what the label rule refuses. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Cn}\p{Co}\p{Cs}]/u;
const labelIsValid = (label: string, max: number) => [...label].length >= 1 && [...label].length <= max && !UNSAFE.test(label);

const labels = fc.oneof(
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 120 }),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.constantFrom('\u0000', '\ud800', '\u202e', '\u200b', '\ufeff', '\u0007', '\ue000'), fc.string({ maxLength: 10 }))
    .map((p) => p.join('')),
  fc.integer({ min: 99, max: 202 }).map((n) => 'x'.repeat(n)),
);

function assertLabelled(response: Response, label: string): void {
  assert.equal(response.status, 201, JSON.stringify(response.body));
  assert.equal(response.body.result.label, label);
}

for (const backend of backends()) {
  describe(`Credential labels on ${backend.name}, fuzzed`, () => {
    let target: FuzzTarget;
    before(async () => {
      target = await fuzzTarget(backend);
      await configurePasskeys(target.t, target.org);
    });
    after(() => target.t.close());

    const importWith = (label: string) =>
      target.t.call('POST', `/persons/${target.personId}/credentials`, { as: target.org, body: { type: 'password', params: { password_hash: HASH }, label } });

    it('stores an imported credential with any label the rule admits, as given; refuses any other naming body.label, storing nothing', async () => {
      await fc.assert(
        fc.asyncProperty(labels, async (label) => {
          await dropPassword(target);
          const before = await credentialCount(target);
          const response = await importWith(label);
          if (labelIsValid(label, 100)) {
            assertLabelled(response, label);
            const listed = await target.t.call('GET', `/persons/${target.personId}/credentials?limit=100`, { as: target.org });
            assert.equal(listed.body.result.find((c: { id: string }) => c.id === response.body.result.id).label, label, 'stored as given');
          } else {
            assertRefusedNaming(response, 'body.label');
            assert.equal(await credentialCount(target), before, 'nothing stored');
          }
        }),
        { numRuns: httpRuns(backend, 150) },
      );
    });

    it('refuses a passkey label the rule does not admit before the ceremony is spent: the same answer then registers', async () => {
      await fc.assert(
        fc.asyncProperty(labels, async (label) => {
          const started = await target.t.call('POST', '/authn/webauthn/registration/options', { as: target.org, body: { person_id: target.personId } });
          const { challenge_id, options } = started.body.result;
          const response = new SoftwareAuthenticator().register({ challenge: options.challenge, rpId: options.rp.id, origin: ORIGIN, userId: options.user.id });
          const finish = (body: Record<string, unknown>) =>
            target.t.call('POST', '/authn/webauthn/registration/verify', { as: target.org, body: { challenge_id, response, ...body } });
          const first = await finish({ label });
          if (labelIsValid(label, 100)) return assertLabelled(first, label);
          assertRefusedNaming(first, 'body.label');
          assert.equal((await finish({})).status, 201, 'the challenge was still unused');
        }),
        { numRuns: httpRuns(backend, 60) },
      );
    });

    it('starts a TOTP enrolment with any label the rule admits; refuses any other naming body.label', async () => {
      await fc.assert(
        fc.asyncProperty(labels, async (label) => {
          const response = await target.t.call('POST', '/authn/totp/enrolment', { as: target.org, body: { person_id: target.personId, label } });
          if (labelIsValid(label, 200)) assert.equal(response.status, 201, JSON.stringify(response.body));
          else assertRefusedNaming(response, 'body.label');
        }),
        { numRuns: httpRuns(backend, 100) },
      );
    });

    it('regression: a label with a NUL character was a 500 on PostgreSQL at import, registration and enrolment', async () => {
      // "\u0000" is what the properties above shrank to (before the fix: a 500 on PostgreSQL, stored on SQLite).
      for (const label of ['\u0000', 'a\u0000b']) assertRefusedNaming(await importWith(label), 'body.label');
      const started = await target.t.call('POST', '/authn/webauthn/registration/options', { as: target.org, body: { person_id: target.personId } });
      const { challenge_id, options } = started.body.result;
      const response = new SoftwareAuthenticator().register({ challenge: options.challenge, rpId: options.rp.id, origin: ORIGIN, userId: options.user.id });
      const registered = await target.t.call('POST', '/authn/webauthn/registration/verify', {
        as: target.org,
        body: { challenge_id, response, label: 'x\u0000' },
      });
      assertRefusedNaming(registered, 'body.label');
      const enrolled = await target.t.call('POST', '/authn/totp/enrolment', { as: target.org, body: { person_id: target.personId, label: 'a\u0000' } });
      assertRefusedNaming(enrolled, 'body.label');
    });
  });
}
