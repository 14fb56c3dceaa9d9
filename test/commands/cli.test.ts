import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';
import { loadServiceConfig } from '../../src/config/service-config.ts';
import { startService } from '../../src/service.ts';

const database = () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'tessera-cli-')), 'tessera.db')}`;

describe('tessera CLI', () => {
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

  it('has --help on every command', async () => {
    for (const args of [['--help'], ['service', '--help'], ['gateway', '--help'], ['admin', 'create-org', '--help'], ['admin', 'rotate-keys', '--help'], ['demo', '--help']]) {
      const result = await runCli(args);
      assert.equal(result.code, 0, args.join(' '));
      assert.match(result.stdout, /^Usage: tessera/);
    }
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
