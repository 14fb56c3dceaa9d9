import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { runCliJson } from './lib/cli.ts';
import { cpuPerRequest } from './lib/cpu.ts';
import { type LoadResult, load, table } from './lib/load.ts';
import { freshPostgresDatabase } from './lib/postgres.ts';
import { scratchDirectory } from './lib/scratch.ts';
import { startServiceProcess } from './lib/service-process.ts';

/**
 * The authenticated API paths every later capability stands on: API-key authentication and
 * a read by id (two indexed look-ups), and a person creation (one transaction, two tables).
 * Same service, embedded SQLite then PostgreSQL, one run.
 */
export async function apiBenchmark(options: { seconds: number; postgresUrl?: string }): Promise<string> {
  const databases: [string, Record<string, string>][] = [['sqlite', { TESSERA_DATABASE: `sqlite:${join(scratchDirectory('tessera-bench-'), 'bench.db')}` }]];
  if (options.postgresUrl) databases.push(['postgres', { DATABASE_URL: await freshPostgresDatabase(options.postgresUrl) }]);

  const results: (LoadResult & { rssMiB: number; cpuUs: number })[] = [];
  for (const [name, env] of databases) {
    const service = await startServiceProcess(env);
    try {
      const { org_id, api_key } = await runCliJson(['admin', 'create-org', '--name', 'bench', '--json'], env);
      const headers = { 'service-orgid': org_id, 'service-api-key': api_key, 'content-type': 'application/json' };
      const person = (await fetch(`${service.url}/persons`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ handles: [{ type: 'email_address', value: 'bench@example.com' }] }),
      }).then((r) => r.json())) as { result: { id: string } };
      results.push({
        ...(await cpuPerRequest(service.cpuSeconds, () =>
          load({ name: `${name}: GET /persons/{id}`, url: `${service.url}/persons/${person.result.id}`, headers, seconds: options.seconds }),
        )),
        rssMiB: service.rssMiB(),
      });
      results.push({
        ...(await cpuPerRequest(service.cpuSeconds, () =>
          load({
            name: `${name}: POST /persons`,
            url: `${service.url}/persons`,
            method: 'POST',
            headers,
            seconds: options.seconds,
            body: () => JSON.stringify({ handles: [{ type: 'email_address', value: `${randomUUID()}@example.com` }] }),
          }),
        )),
        rssMiB: service.rssMiB(),
      });
    } finally {
      await service.stop();
    }
  }
  return table(results);
}
