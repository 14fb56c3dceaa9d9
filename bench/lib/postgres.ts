import pg from 'pg';

/** The databases this process made, dropped by dropBenchDatabases(). */
const made: { baseUrl: string; name: string }[] = [];

/** A new, empty database on the server of `baseUrl`, for one benchmark run. */
export async function freshPostgresDatabase(baseUrl: string): Promise<string> {
  const name = `tessera_bench_${Date.now()}`;
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  made.push({ baseUrl, name });
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Drops every database freshPostgresDatabase() made in this process, once the services that
 * used them have stopped (FORCE ends a connection one left behind): each run made a database
 * of its own and left it on the server.
 */
export async function dropBenchDatabases(): Promise<void> {
  for (const { baseUrl, name } of made.splice(0)) {
    const client = new pg.Client({ connectionString: baseUrl });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  }
}

/**
 * After a bulk load: statistics for the planner (the server may run without autovacuum) and
 * the load's dirty pages written out, so that neither a checkpoint of the load nor plans made
 * for empty tables land in the measured rows.
 */
export async function settlePostgresDatabase(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('ANALYZE');
    await client.query('CHECKPOINT');
  } finally {
    await client.end();
  }
}
