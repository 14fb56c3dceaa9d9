import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FAULTS } from '../../soak/faults.ts';
import { soakReport } from '../../soak/report.ts';
import { runSoak } from '../../soak/soak.ts';
import { postgresServerUrl } from '../helpers/replicas.ts';

// The soak brings a PostgreSQL server of its own (it restarts it); like every PostgreSQL suite
// it runs where TEST_DATABASE_URL says this machine has PostgreSQL. `npm run soak` is the long form.
if (postgresServerUrl()) {
  describe('Soak with faults, short form (npm run soak is the long one)', () => {
    it('keeps every promise through a replica killed, PostgreSQL restarted, the token endpoint failing and hanging, and SMTP refusing', async (t) => {
      const result = await runSoak({ seconds: 30, cycleSeconds: 30, rate: 25, warmUpSeconds: 5, log: (line) => t.diagnostic(line) });
      const report = soakReport(result);
      t.diagnostic(report);
      assert.deepEqual(
        result.faults.map((fault) => fault.name),
        FAULTS.map((fault) => fault.name),
        'each fault of the matrix was injected once',
      );
      assert.ok(result.ledger.unavailable > 0, 'the database restart was seen (503s with Retry-After)');
      // The invariants must not hold for want of anything to check.
      const { acked, outcomes } = result.ledger;
      for (const operation of ['gateway call', 'verify after removal', 'verification verify']) {
        assert.ok((outcomes.get(operation)?.get(200) ?? 0) + (outcomes.get(operation)?.get(403) ?? 0) > 0, `${operation} was answered`);
      }
      assert.ok(acked.persons.length > 0 && acked.credentials.length > 0 && acked.tokens.length > 0, 'writes were acknowledged');
      assert.ok(acked.identities.size > 0 && acked.removed.size > 0, 'identities were created and removed');
      for (const invariant of result.invariants) assert.ok(invariant.held, `${invariant.name}: ${invariant.detail}\n\n${report}`);
    });
  });
}
