import type { MigrationSource } from './dialect.ts';

export const attemptCountersPerHandle: MigrationSource = {
  version: 7,
  name: 'attempt counters per handle and credential type',
  statements: () => [
    // The counters were per person, which told an attacker that two handles name one person
    // (the second handle was refused at once) and locked every method together. Now one per
    // handle and credential type, under new subjects (src/authn/attempt-subject.ts).
    // person_id: who the handle named when last counted (null: nobody), for the
    // administrator's view and reset and for party deletion. Columns are added, not the
    // table rebuilt: a replica still on the old code keeps counting (its rows take the
    // defaults and are never read by the new code), so a rolling upgrade breaks no login.
    'ALTER TABLE authn_attempts ADD COLUMN person_id TEXT',
    "ALTER TABLE authn_attempts ADD COLUMN credential_type TEXT NOT NULL DEFAULT 'password'",
    'CREATE INDEX authn_attempts_by_person ON authn_attempts (org_id, person_id)',
  ],
};
