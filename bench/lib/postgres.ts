import pg from 'pg';

/** A new, empty database on the server of `baseUrl`, for one benchmark run. */
export async function freshPostgresDatabase(baseUrl: string): Promise<string> {
  const name = `tessera_bench_${Date.now()}`;
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
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
