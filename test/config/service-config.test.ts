import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ConfigError, loadServiceConfig, serviceVariables } from '../../src/config/service-config.ts';

const SECRET = 's'.repeat(32);

describe('Service configuration', () => {
  it('applies the documented defaults', () => {
    const { config, warnings } = loadServiceConfig({ TESSERA_SECRET: SECRET });
    assert.deepEqual(config, {
      port: 8080, host: '127.0.0.1', databaseUrl: 'sqlite:./data/tessera.db', issuer: undefined, secret: SECRET,
      dev: false, logLevel: 'info', bodyLimit: 65536, databasePoolSize: 10,
    });
    assert.deepEqual(warnings, []);
  });

  it('lets DATABASE_URL win over TESSERA_DATABASE and trims the issuer', () => {
    const { config } = loadServiceConfig({
      TESSERA_SECRET: SECRET, TESSERA_DATABASE: 'sqlite::memory:', DATABASE_URL: 'postgres://db/tessera', TESSERA_ISSUER: 'https://id.example.org/',
    });
    assert.equal(config.databaseUrl, 'postgres://db/tessera');
    assert.equal(config.issuer, 'https://id.example.org');
  });

  it('requires TESSERA_SECRET outside development, and warns when development supplies one', () => {
    assert.throws(() => loadServiceConfig({}), (e: unknown) => e instanceof ConfigError && /TESSERA_SECRET: is required/.test(e.message));
    const { config, warnings } = loadServiceConfig({ TESSERA_DEV: '1' });
    assert.equal(config.dev, true);
    assert.ok(config.secret.length >= 32);
    assert.match(warnings[0]!, /development secret/);
  });

  it('names every bad variable at once, with its rule', () => {
    assert.throws(
      () => loadServiceConfig({ TESSERA_PORT: '70000', TESSERA_DATABASE: 'mysql://x', TESSERA_LOG_LEVEL: 'loud', TESSERA_SECRET: 'short', TESSERA_BODY_LIMIT: '10' }),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        for (const expected of [
          'TESSERA_PORT: must be an integer from 0 to 65535',
          'TESSERA_DATABASE: must be sqlite:PATH, sqlite::memory: or a postgres:// URL',
          'TESSERA_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
          'TESSERA_SECRET: must be at least 32 characters',
          'TESSERA_BODY_LIMIT: must be a byte count from 1024 to 10485760',
        ]) assert.ok(e.message.includes(expected), `missing "${expected}" in:\n${e.message}`);
        return true;
      },
    );
  });

  it('documents every variable in docs/configuration.md', () => {
    const docs = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    for (const name of Object.keys(serviceVariables)) assert.ok(docs.includes(`\`${name}\``), `${name} is not documented`);
  });
});
