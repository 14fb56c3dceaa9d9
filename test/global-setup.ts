import { postgresNotice, underCi } from './helpers/backends.ts';

/**
 * Run once by `npm test` (--test-global-setup), in the runner's process before any test file.
 * Each file runs in a process of its own and would otherwise say, once per file, that its
 * PostgreSQL runs are left out: the runner says it here, once, and tells the files so.
 */
export function globalSetup(): void {
  if (process.env.TEST_DATABASE_URL || underCi()) return; // set, or each file fails (backends.ts)
  console.log(postgresNotice('PostgreSQL runs and the replica suites'));
  process.env.TESSERA_TEST_NOTICE_SHOWN = '1';
}
