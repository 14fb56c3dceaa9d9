import type { MigrationSource } from './dialect.ts';

export const attemptsOfNoOnePurgeIndex: MigrationSource = {
  version: 13,
  name: 'authn_attempts: an index for purging the counters of handles that name no one',
  // The purge timer deletes these by their last attempt (housekeeping/purge-stale-rows.ts);
  // without an index each batch scanned the table a stranger's guesses had grown.
  statements: () => ['CREATE INDEX authn_attempts_of_no_one_by_last_attempt ON authn_attempts (last_attempt_at) WHERE person_id IS NULL'],
};
