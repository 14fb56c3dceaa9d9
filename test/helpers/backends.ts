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

/**
 * SQLite always; PostgreSQL when TEST_DATABASE_URL names a database (CI sets it). Without it
 * the PostgreSQL runs are not registered at all, and this says so once per file.
 */
export function backends(): Backend[] {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    console.log('# PostgreSQL runs not registered: TEST_DATABASE_URL is unset (see README, "Tests")');
    return [sqlite];
  }
  return [sqlite, postgres(url)];
}
