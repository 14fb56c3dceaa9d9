import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** A database URL of an empty database; `drop` removes it again. */
  fresh(): Promise<{ url: string; drop: () => Promise<void> }>;
}

const sqlite: Backend = {
  name: 'sqlite',
  fresh: async () => ({ url: 'sqlite::memory:', drop: async () => {} }),
};

/**
 * Each call gets its own PostgreSQL schema inside TEST_DATABASE_URL's database, selected
 * through the connection's search_path, so test files can run in parallel without sharing rows.
 */
function postgres(baseUrl: string): Backend {
  return {
    name: 'postgres',
    async fresh() {
      const schema = `t_${randomBytes(6).toString('hex')}`;
      const admin = new pg.Client({ connectionString: baseUrl });
      await admin.connect();
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.end();
      const url = new URL(baseUrl);
      url.searchParams.set('options', `-c search_path=${schema}`);
      return {
        url: url.toString(),
        async drop() {
          const client = new pg.Client({ connectionString: baseUrl });
          await client.connect();
          await client.query(`DROP SCHEMA ${schema} CASCADE`);
          await client.end();
        },
      };
    },
  };
}

/** True when the process runs under CI: CI is set, and not to "false" or "0". */
export function underCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI?.trim().toLowerCase();
  return Boolean(ci) && ci !== 'false' && ci !== '0';
}

/**
 * TEST_DATABASE_URL, or undefined when it is unset outside CI (`what` is then not registered,
 * and this says so). Under CI a missing TEST_DATABASE_URL throws: a CI run that lost the
 * variable would otherwise be green without a single PostgreSQL test.
 */
export function testDatabaseUrl(what: string): string | undefined {
  const url = process.env.TEST_DATABASE_URL;
  if (url) return url;
  if (underCi()) {
    throw new Error(
      `TEST_DATABASE_URL is unset but CI is set (CI=${process.env.CI}): ${what} would silently not run. ` +
        'Set TEST_DATABASE_URL to a PostgreSQL database whose user may create schemas and databases ' +
        '(e.g. TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test, as .ci/run does), or unset CI to run SQLite only.',
    );
  }
  // Once per process, and not at all under `npm test`, whose global setup said it once for the run.
  if (!process.env.TESSERA_TEST_NOTICE_SHOWN) {
    console.log(postgresNotice(what));
    process.env.TESSERA_TEST_NOTICE_SHOWN = '1';
  }
  return undefined;
}

/** What is left out without TEST_DATABASE_URL, and the README section that says how to set it. */
export function postgresNotice(what: string): string {
  return `# ${what} not registered: TEST_DATABASE_URL is unset (see README, "Test it")`;
}

/**
 * SQLite always; PostgreSQL when TEST_DATABASE_URL names a database (CI sets it). Without it
 * the PostgreSQL runs are not registered at all, and this says so once (testDatabaseUrl); under CI
 * (CI set) a missing TEST_DATABASE_URL throws instead.
 */
export function backends(): Backend[] {
  const url = testDatabaseUrl('PostgreSQL runs');
  return url ? [sqlite, postgres(url)] : [sqlite];
}
