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
