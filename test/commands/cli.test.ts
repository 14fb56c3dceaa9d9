import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadServiceConfig } from '../../src/config/service-config.ts';
import { startService } from '../../src/service/service.ts';
import { exited, runCli, spawnCli, waitForOutput } from '../helpers/cli.ts';

const directories: string[] = [];
const directory = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-cli-'));
  directories.push(dir);
  return dir;
};
const database = () => `sqlite:${join(directory(), 'tessera.db')}`;

/** A port another process holds for the length of a test. */
async function busyPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

describe('tessera CLI', () => {
  after(() => {
    for (const dir of directories) rmSync(dir, { recursive: true, force: true });
  });

  it('creates an organisation whose printed key works against the service', async () => {
    const TESSERA_DATABASE = database();
    const created = await runCli(['admin', 'create-org', '--name', 'Acme', '--json'], { TESSERA_DATABASE });
    assert.equal(created.code, 0, created.stderr);
    const { org_id, api_key } = JSON.parse(created.stdout);
    assert.match(org_id, /^org_/);
    assert.match(api_key, /^tsk_/);

    const { config } = loadServiceConfig({ TESSERA_DATABASE, TESSERA_PORT: '0', TESSERA_DEV: '1', TESSERA_LOG_LEVEL: 'silent' });
    const service = await startService(config);
    try {
      const response = await fetch(`${service.url}/persons`, { headers: { 'service-orgid': org_id, 'service-api-key': api_key } });
      assert.equal(response.status, 200);
    } finally {
      await service.close();
    }

    const again = await runCli(['admin', 'create-org', '--name', 'Acme'], { TESSERA_DATABASE });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /--name: an organisation with this name already exists/);
  });

  it('prints a readable summary without --json', async () => {
    const result = await runCli(['admin', 'create-org', '--name', 'Readable'], { TESSERA_DATABASE: database() });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /org id: +org_\w+\n +admin key: tsk_/);
  });

  it('exits 2 with a pointer to --help on wrong usage', async () => {
    for (const args of [['admin', 'create-org'], ['admin', 'create-org', '--name', 'x', '--colour', 'red'], ['frobnicate']]) {
      const result = await runCli(args, { TESSERA_DATABASE: database() });
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, /--help|Usage: tessera/);
    }
    const blank = await runCli(['admin', 'create-org', '--name', ' '], { TESSERA_DATABASE: database() });
    assert.equal(blank.code, 2);
    assert.match(blank.stderr, /--name: must be 1 to 100 characters/);
  });

  it('has --help on every command and group, with options and environment variables', async () => {
    for (const args of [['--help'], ['-h'], ['admin', '--help']]) {
      const result = await runCli(args);
      assert.equal(result.code, 0, args.join(' '));
      assert.match(result.stdout, /^Usage: tessera/);
    }
    assert.match((await runCli(['admin', '--help'])).stdout, /admin create-org .*\n.*admin rotate-keys/);
    const admin = [...(await runCli(['admin', '--help'])).stdout.matchAll(/^ {2}admin (\S+)/gm)].map((m) => m[1]!);
    // Design §9's commands.
    for (const verb of [
      'create-person',
      'list-persons',
      'delete-person',
      'invite-person',
      'create-client',
      'list-clients',
      'rotate-client-secret',
      'delete-client',
    ]) {
      assert.ok(admin.includes(verb), `admin ${verb} is listed`);
    }
    for (const verb of ['create-api-key', 'revoke-api-key', 'create-connection', 'reset-attempts']) assert.ok(admin.includes(verb), `admin ${verb} is listed`);
    for (const command of [['service'], ['gateway'], ['demo'], ['demo', 'token'], ...admin.map((verb) => ['admin', verb])]) {
      const result = await runCli([...command, '--help']);
      assert.equal(result.code, 0, command.join(' '));
      assert.match(result.stdout, new RegExp(`^Usage: tessera ${command.join(' ')}`));
      assert.match(result.stdout, /\nOptions:\n(.*\n)* {2}-h, --help/, `${command.join(' ')} lists its options`);
      assert.match(result.stdout, /\nEnvironment.*:\n {2}[A-Z_]+/, `${command.join(' ')} lists its environment variables`);
    }
    const bare = await runCli(['admin']);
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /"admin" needs a command/);
  });

  it("an admin command's help lists --org, --json and its environment; every option in the usage line is in the list", async () => {
    for (const verb of ['create-person', 'create-client', 'reset-attempts', 'create-connection']) {
      const { stdout } = await runCli(['admin', verb, '--help']);
      assert.match(stdout, /\n {2}--org ORG {19}the organisation: its id \(org_…\) or its name\n/);
      assert.match(stdout, /\n {2}--json {22}print /);
      assert.match(stdout, /\n {2}TESSERA_DATABASE /);
      const usage = stdout.slice(0, stdout.indexOf('\n\n'));
      for (const [, option] of usage.matchAll(/(--[a-z-]+)/g)) assert.match(stdout, new RegExp(`\n {2}${option}\\b`), `${verb}: ${option} is described`);
    }
    assert.match((await runCli(['admin', 'reset-attempts', '--help'])).stdout, /TESSERA_SECRET {14}the service's secret \(required unless TESSERA_DEV=1\)/);
    assert.match((await runCli(['admin', 'list-persons', '--help'])).stdout, /TESSERA_SECRET {14}not needed/);
  });

  it('suggests the command or option meant by a likely typo, with exit status 2; none when nothing is close', async () => {
    const cases: [string[], RegExp][] = [
      [['gatewy'], /^tessera: unknown command "gatewy"; did you mean gateway\?\n\nUsage: tessera <command>/],
      [['servce', '--help'], /^tessera: unknown command "servce --help"; did you mean service\?\n/],
      [
        ['admin', 'create-persn', '--org', 'Acme'],
        /^tessera: unknown command "admin create-persn --org Acme"; did you mean admin create-person\?\n\nUsage: tessera admin <command>/,
      ],
      [['admn', 'list-clients'], /^tessera: unknown command "admn list-clients"; did you mean admin list-clients\?\n/],
      [
        ['admin', 'create-org', '--nmae', 'Acme'],
        /^tessera admin create-org: Unknown option '--nmae'; did you mean --name\?\nRun "tessera admin create-org --help" for usage\.\n$/,
      ],
      [['admin', 'list-persons', '--org', 'Acme', '--jsno'], /^tessera admin list-persons: Unknown option '--jsno'; did you mean --json\?\n/],
      [['gateway', '--confg', 'gw.yaml'], /^tessera gateway: Unknown option '--confg'; did you mean --config\?\n/],
      [['frobnicate'], /^tessera: unknown command "frobnicate"\n\n/],
      [['admin', 'create-person', '--colour', 'red'], /^tessera admin create-person: Unknown option '--colour'\nRun /],
    ];
    for (const [args, stderr] of cases) {
      const result = await runCli(args, { TESSERA_DATABASE: database() });
      assert.equal(result.code, 2, args.join(' '));
      assert.equal(result.stdout, '', args.join(' '));
      assert.match(result.stderr, stderr, args.join(' '));
    }
  });

  it('warns on stderr about TESSERA_* variables that configure nothing, naming the closest setting, for the admin commands and the service', async () => {
    const TESSERA_DATABASE = database();
    const typo = { TESSERA_DATABSE: 'sqlite::memory:', TESSERA_DATABASE };
    const created = await runCli(['admin', 'create-org', '--name', 'Warned', '--json'], typo);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(
      created.stderr,
      'tessera admin create-org: warning: TESSERA_DATABSE configures nothing (no such service setting); did you mean TESSERA_DATABASE? Every setting is in docs/configuration.md\n',
    );
    const listed = await runCli(['admin', 'list-persons', '--org', 'Warned'], { ...typo, TESSERA_SCERET: 'x' });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(
      listed.stderr,
      /^tessera admin list-persons: warning: TESSERA_DATABSE configures nothing .*did you mean TESSERA_DATABASE\?.*\ntessera admin list-persons: warning: TESSERA_SCERET configures nothing .*did you mean TESSERA_SECRET\?/,
    );
    // Named before the refusal it explains: the secret was set under another name.
    const refused = await runCli(['service'], { TESSERA_SECRT: 'a-secret-of-at-least-thirty-two-characters', TESSERA_DATABASE });
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /^tessera service: warning: TESSERA_SECRT configures nothing \(no such service setting\); did you mean TESSERA_SECRET\?.*\ntessera service: invalid configuration:\n {2}TESSERA_SECRET: is required/,
    );

    const child = spawnCli(['service'], { TESSERA_PORT: '0', TESSERA_DEV: '1', TESSERA_DATABASE, TESSERA_PROT: '8080' });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const stdout = await waitForOutput(child, 'tessera service started');
    child.kill('SIGTERM');
    assert.equal(await exited(child), 0);
    assert.match(
      stderr,
      /^tessera service: warning: TESSERA_PROT configures nothing \(no such service setting\); did you mean TESSERA_PORT\? Every setting is in docs\/configuration\.md\n/,
    );
    assert.match(stdout, /"level":40,.*TESSERA_PROT configures nothing/, 'and in the log at warn level');
  });

  it('prints the version of package.json with --version and -v', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v']) {
      const result = await runCli([flag]);
      assert.equal(result.code, 0);
      assert.equal(result.stdout, `tessera ${version}\n`);
    }
  });

  it('keeps the default database in TESSERA_DATA_DIR and prints where it wrote', async () => {
    const data = directory();
    const result = await runCli(['admin', 'create-org', '--name', 'Placed'], { TESSERA_DATA_DIR: data });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`database: +sqlite:${data}/tessera.db\n`));
    assert.ok(existsSync(join(data, 'tessera.db')));
    const home = directory();
    const xdg = await runCli(['admin', 'create-org', '--name', 'Placed'], { HOME: home });
    assert.equal(xdg.code, 0, xdg.stderr);
    assert.ok(existsSync(join(home, '.local', 'share', 'tessera', 'tessera.db')), 'without TESSERA_DATA_DIR or XDG_DATA_HOME: ~/.local/share/tessera');
  });

  it('names the variable and port that is taken, for the service and for each gateway port', async () => {
    const { port, server } = await busyPort();
    try {
      const service = await runCli(['service'], {
        TESSERA_PORT: String(port),
        TESSERA_DEV: '1',
        TESSERA_DATABASE: 'sqlite::memory:',
        TESSERA_LOG_LEVEL: 'silent',
      });
      assert.equal(service.code, 1);
      assert.match(service.stderr, new RegExp(`TESSERA_PORT: port ${port} on 127.0.0.1 is taken by another process; set TESSERA_PORT to another port`));
      for (const variable of ['GATEWAY_PORT', 'GATEWAY_ADMIN_PORT']) {
        const env = {
          GATEWAY_PORT: '0',
          GATEWAY_ADMIN_PORT: '0',
          GATEWAY_DEFAULT_TARGET: 'http://127.0.0.1:9',
          GATEWAY_LOG_LEVEL: 'silent',
          [variable]: String(port),
        };
        const gateway = await runCli(['gateway'], env);
        assert.equal(gateway.code, 1, variable);
        assert.match(gateway.stderr, new RegExp(`${variable}: port ${port} on 127.0.0.1 is taken`));
      }
      const other = await busyPort();
      try {
        const both = await runCli(['gateway'], {
          GATEWAY_PORT: String(port),
          GATEWAY_ADMIN_PORT: String(other.port),
          GATEWAY_DEFAULT_TARGET: 'http://127.0.0.1:9',
          GATEWAY_LOG_LEVEL: 'silent',
        });
        assert.equal(both.code, 1);
        assert.match(both.stderr, /2 ports cannot be used; set GATEWAY_PORT, GATEWAY_ADMIN_PORT to other ports:\n/, 'both ports in one message');
        assert.match(both.stderr, new RegExp(`  GATEWAY_ADMIN_PORT: port ${other.port} on 127.0.0.1 is taken by another process`));
      } finally {
        other.server.close();
      }
    } finally {
      server.close();
    }
  });

  it('warns on stderr about gateway variables that configure nothing, and about what an empty gateway does', async () => {
    const child = spawnCli(['gateway'], { GATEWAY_PORT: '0', GATEWAY_ADMIN_PORT: '0', GATEWAY_PLUGINS_0_PARAMETRS_ACTOR_MODE: 'oauth_client' });
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const stdout = await waitForOutput(child, 'tessera gateway started');
    child.kill('SIGTERM');
    assert.equal(await exited(child), 0);
    assert.match(stderr, /warning: GATEWAY_PLUGINS_0_PARAMETRS_ACTOR_MODE configures nothing .*did you mean GATEWAY_PLUGINS_0_PARAMETERS_ACTOR_MODE\?/);
    assert.match(stderr, /warning: no URL rule .*every request will be answered 404/);
    assert.match(stderr, /warning: no plugins .*without exchanging tokens/);
    assert.match(stdout, /"level":40,.*GATEWAY_PLUGINS_0_PARAMETRS_ACTOR_MODE configures nothing/, 'and in the log at warn level');
  });

  it('refuses to start the gateway on bad configuration, naming the key', async () => {
    const result = await runCli(['gateway'], { GATEWAY_PLUGINS_0_TYPE: 'token-exchange', GATEWAY_PLUGINS_0_PARAMETERS_ACTOR_MODE: 'oauth_client' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /GATEWAY_PLUGINS_0_PARAMETERS_SERVICE_BASE_URL: is required/);
  });

  it('refuses to start the service on bad configuration, naming the variable', async () => {
    const result = await runCli(['service'], { TESSERA_PORT: 'eighty', TESSERA_DEV: '1' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /TESSERA_PORT: must be an integer from 0 to 65535/);
    const noSecret = await runCli(['service'], {});
    assert.equal(noSecret.code, 2);
    assert.match(noSecret.stderr, /TESSERA_SECRET: is required/);
  });
});
