import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { backends } from '../helpers/backends.ts';
import { type Door, doorsOf, type Operators } from '../verification/doors.ts';
import { startVerificationHarness, type VerificationHarness } from '../verification/harness.ts';
import { stepArbitrary } from './attribute-paths.forms.ts';
import { applyChange, CORE, coveredAttributes, effectiveActive, expectedUser, initialModel, type Model, verificationEmail } from './attribute-paths.model.ts';

/** Runs per backend (about 10 s each): each provisions a user, starts a verification, sends up to 6 changes and verifies. */
const RUNS = 40;
/** The per-operator limit is 30 checks a minute: fresh operators before it is reached. */
const VERIFIES_PER_OPERATOR = 25;

for (const backend of backends()) {
  describe(`SCIM attribute paths against a reference model (design §6), on ${backend.name}`, () => {
    let h: VerificationHarness;
    let door: Door;
    let operators: Operators;
    let verifies = 0;
    before(async () => {
      h = await startVerificationHarness(backend);
    });
    after(() => h.close());

    const freshOperatorWhenNeeded = async () => {
      if (door && verifies < VERIFIES_PER_OPERATOR) return;
      const made = await doorsOf(h.t, h.org);
      door = made.doors.find((d) => d.name === 'integration')!;
      operators = made.operators;
      verifies = 0;
    };

    it('any sequence of PATCH and PUT, in every form, leaves the model’s User; a deactivation in any form makes the deny-gate refuse', async () => {
      // userNames are drawn symbolic (u1@names.example) and made unique per run when sent, so no
      // run, nor a replay while shrinking, meets another run's user.
      const symbolic = (tag: string) => `${tag}@names.example`;
      const steps = fc.array(stepArbitrary(symbolic), { minLength: 1, maxLength: 6 });
      await fc.assert(
        fc.asyncProperty(steps, async (sequence) => {
          const unique = randomUUID().slice(0, 8);
          const resolve = <T>(value: T): T => JSON.parse(JSON.stringify(value).replaceAll('@names.example', `.${unique}@names.example`));
          const expected = (model: Model) => resolve(expectedUser(model));
          await freshOperatorWhenNeeded();
          // A verification started before any change: the deny-gate is what decides it.
          const { identity, id, code } = await h.started(door);
          let current = initialModel(identity.email);
          for (const step of sequence) {
            const answer = await h.scim.call(step.method, `/Users/${identity.id}`, resolve(step.body));
            assert.equal(answer.status, 200, `${JSON.stringify(step.body)} → ${JSON.stringify(answer.body)}`);
            current = applyChange(current, step.change);
            assert.deepEqual(coveredAttributes(answer.body), expected(current), JSON.stringify(step.body));
          }
          const read = await h.scim.call('GET', `/Users/${identity.id}`);
          assert.deepEqual(coveredAttributes(read.body), expected(current));
          const members = [...Object.keys(read.body), ...read.body.schemas.slice(1)];
          assert.ok(!members.some((key: string) => key.toLowerCase() === CORE.toLowerCase()), 'the core URN is never an extension');

          verifies++;
          const verdict = await door.verify({ verification_id: id, connection_id: h.scim.connectionId, code }, operators.verifier);
          const sameAddress = verificationEmail(current)?.toLowerCase() === identity.email.toLowerCase();
          if (!effectiveActive(current)) assert.equal(verdict.status, 403, `deactivated: ${JSON.stringify(sequence.map((s) => s.body))}`);
          else if (sameAddress) assert.deepEqual([verdict.status, verdict.body.result], [200, { verified: true }]);
          else assert.equal(verdict.status, 403, 'the address the code went to is gone');
        }),
        { numRuns: RUNS },
      );
    });
  });
}
