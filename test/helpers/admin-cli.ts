import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { loadServiceConfig } from '../../src/config/service-config.ts';
import { startService } from '../../src/service/service.ts';
import type { Backend } from './backends.ts';
import { type CliResult, runCli } from './cli.ts';
import { startTestServiceOver, TEST_SECRET, type TestOrg, type TestService } from './service.ts';

/** A test of `tessera admin` commands: their database, the service over it, and an organisation the CLI made. */
export interface AdminCli {
  /** The service over the database the commands write to, for reading through the API what they did. */
  t: TestService;
  /** The organisation `admin create-org` made, with its first admin key. */
  org: TestOrg;
  orgName: string;
  /** The database variables and the service's secret, as an operator runs the commands. */
  env: Record<string, string>;
  /** Runs `tessera admin <args>` in its own process. */
  admin(args: string[], env?: Record<string, string>): Promise<CliResult>;
  /** The audit events of `type` in the organisation, oldest first, as GET /audit/events lists them. */
  events(type: string): Promise<{ type: string; data: Record<string, unknown> }[]>;
  close(): Promise<void>;
}

/** What every event a command writes names as its operator. */
export const CLI_OPERATOR = { operator: 'cli', os_user: userInfo().username };

/**
 * A database a child process reaches too (SQLite: a file, not memory; PostgreSQL: a schema of
 * its own), the real service over it on port 0, and an organisation made by `admin create-org`.
 */
export async function startAdminCli(backend: Backend, orgName = 'Acme'): Promise<AdminCli> {
  const directory = mkdtempSync(join(tmpdir(), 'tessera-admin-'));
  const database = backend.name === 'sqlite' ? { url: `sqlite:${join(directory, 'tessera.db')}`, drop: async () => {} } : await backend.fresh();
  const env = { TESSERA_DATABASE: database.url, TESSERA_SECRET: TEST_SECRET };
  const admin = (args: string[], more: Record<string, string> = {}) => runCli(['admin', ...args], { ...env, ...more });
  const cleanUp = async () => {
    await database.drop();
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    const created = await admin(['create-org', '--name', orgName, '--json']);
    if (created.code !== 0) throw new Error(`admin create-org failed: ${created.stderr}`);
    const { org_id, api_key } = JSON.parse(created.stdout) as { org_id: string; api_key: string };
    const org = { orgId: org_id, apiKey: api_key, headers: { 'service-orgid': org_id, 'service-api-key': api_key } };
    const { config } = loadServiceConfig({ ...env, TESSERA_PORT: '0', TESSERA_LOG_LEVEL: 'silent', TESSERA_LOGIN_FAILURE_TIME: '100' });
    const t = startTestServiceOver(await startService(config));
    return {
      t,
      org,
      orgName,
      env,
      admin,
      events: async (type) => (await t.call('GET', `/audit/events?type=${type}&limit=100`, { as: org })).body.result,
      async close() {
        await t.close();
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
