import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadServiceConfig, serviceVariables } from '../../src/config/service-config.ts';

const SECRET = 's'.repeat(32);

describe('Service configuration', () => {
  it('applies the documented defaults', () => {
    const { config, warnings } = loadServiceConfig({ TESSERA_SECRET: SECRET, HOME: '/home/ada' });
    assert.deepEqual(config, {
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'sqlite:/home/ada/.local/share/tessera/tessera.db',
      issuer: undefined,
      secret: SECRET,
      dev: false,
      logLevel: 'info',
      bodyLimit: 65536,
      databasePoolSize: 10,
      tokenPurgeIntervalMs: 600_000,
      workers: 1,
      trustedProxies: [],
      loginsPerSource: 4,
      loginFailureTimeMs: 1000,
      smtpUrl: undefined,
      smtpFrom: undefined,
      smtpTimeoutMs: 10000,
      shutdown: { delayMs: 0, timeoutMs: 10_000 },
      listener: {
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        keepAliveTimeoutMs: 65_000,
        idleTimeoutMs: 60_000,
        maxRequestsPerConnection: 1_000,
        maxConnections: 4_096,
        maxConnectionsPerAddress: 256,
      },
    });
    assert.deepEqual(warnings, []);
  });

  it('reads the listener policy, its caps admitting the benchmarks’ 50 connections from one address, and names a request timeout below the headers timeout', () => {
    const listener = (env: Record<string, string>) => loadServiceConfig({ TESSERA_SECRET: SECRET, ...env }).config.listener;
    assert.ok(listener({}).maxConnectionsPerAddress >= 50);
    assert.deepEqual(
      listener({
        TESSERA_HEADERS_TIMEOUT: '300',
        TESSERA_REQUEST_TIMEOUT: '600',
        TESSERA_KEEP_ALIVE_TIMEOUT: '5000',
        TESSERA_IDLE_TIMEOUT: '20000',
        TESSERA_MAX_REQUESTS_PER_CONNECTION: '2',
        TESSERA_MAX_CONNECTIONS: '8',
        TESSERA_MAX_CONNECTIONS_PER_ADDRESS: '3',
      }),
      {
        headersTimeoutMs: 300,
        requestTimeoutMs: 600,
        keepAliveTimeoutMs: 5000,
        idleTimeoutMs: 20_000,
        maxRequestsPerConnection: 2,
        maxConnections: 8,
        maxConnectionsPerAddress: 3,
      },
    );
    assert.throws(
      () => listener({ TESSERA_IDLE_TIMEOUT: '10000' }),
      /TESSERA_IDLE_TIMEOUT: must be milliseconds from 100 to 3600000, longer than TESSERA_SMTP_TIMEOUT/,
    );
    assert.equal(listener({ TESSERA_HEADERS_TIMEOUT: '60000' }).requestTimeoutMs, 60_000, 'an unset request timeout follows a longer headers timeout');
    assert.throws(
      () => listener({ TESSERA_HEADERS_TIMEOUT: '20000', TESSERA_REQUEST_TIMEOUT: '10000' }),
      /TESSERA_REQUEST_TIMEOUT: must be milliseconds from 100 to 3600000, at least TESSERA_HEADERS_TIMEOUT/,
    );
    assert.throws(
      () => listener({ TESSERA_MAX_CONNECTIONS: '0', TESSERA_KEEP_ALIVE_TIMEOUT: '700000' }),
      (error: Error) => {
        assert.match(error.message, /TESSERA_MAX_CONNECTIONS: must be an integer from 1 to 1000000/);
        assert.match(error.message, /TESSERA_KEEP_ALIVE_TIMEOUT: must be milliseconds from 100 to 600000/);
        return true;
      },
    );
  });

  it('keeps the default database in one place whatever the working directory', () => {
    const url = (env: Record<string, string>) => loadServiceConfig({ TESSERA_SECRET: SECRET, HOME: '/home/ada', ...env }).config.databaseUrl;
    assert.equal(url({ XDG_DATA_HOME: '/xdg' }), 'sqlite:/xdg/tessera/tessera.db');
    assert.equal(
      url({ XDG_DATA_HOME: 'relative/xdg' }),
      'sqlite:/home/ada/.local/share/tessera/tessera.db',
      'a relative XDG_DATA_HOME is ignored, as its specification says',
    );
    assert.equal(url({ XDG_DATA_HOME: '/xdg', TESSERA_DATA_DIR: '/srv/tessera' }), 'sqlite:/srv/tessera/tessera.db');
    assert.equal(
      url({ TESSERA_DATABASE: 'sqlite:db/t.db' }),
      `sqlite:${resolve('db/t.db')}`,
      'a relative path is made absolute once, so the printed path is the file opened',
    );
    assert.equal(url({ TESSERA_DATABASE: 'sqlite::memory:' }), 'sqlite::memory:');
  });

  it('lets DATABASE_URL win over TESSERA_DATABASE and trims the issuer', () => {
    const { config } = loadServiceConfig({
      TESSERA_SECRET: SECRET,
      TESSERA_DATABASE: 'sqlite::memory:',
      DATABASE_URL: 'postgres://db/tessera',
      TESSERA_ISSUER: 'https://id.example.org/',
    });
    assert.equal(config.databaseUrl, 'postgres://db/tessera');
    assert.equal(config.issuer, 'https://id.example.org');
  });

  it('requires TESSERA_SECRET outside development, and warns when development supplies one', () => {
    assert.throws(
      () => loadServiceConfig({}),
      (e: unknown) => e instanceof ConfigError && /TESSERA_SECRET: is required/.test(e.message),
    );
    const { config, warnings } = loadServiceConfig({ TESSERA_DEV: '1' });
    assert.equal(config.dev, true);
    assert.ok(config.secret.length >= 32);
    assert.match(warnings[0]!, /development secret/);
  });

  it('names every bad variable at once, with its rule', () => {
    assert.throws(
      () =>
        loadServiceConfig({
          TESSERA_PORT: '70000',
          TESSERA_DATABASE: 'mysql://x',
          TESSERA_LOG_LEVEL: 'loud',
          TESSERA_SECRET: 'short',
          TESSERA_BODY_LIMIT: '10',
          TESSERA_TRUSTED_PROXIES: '10.0.0.0/33,::1',
          TESSERA_LOGINS_PER_SOURCE: '5000',
        }),
      (e: unknown) => {
        assert.ok(e instanceof ConfigError);
        for (const expected of [
          'TESSERA_PORT: must be an integer from 0 to 65535',
          'TESSERA_DATABASE: must be sqlite:PATH, sqlite::memory: or a postgres:// URL',
          'TESSERA_LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent',
          'TESSERA_SECRET: must be at least 32 characters',
          'TESSERA_BODY_LIMIT: must be a byte count from 1024 to 10485760',
          'TESSERA_TRUSTED_PROXIES: must be comma-separated IP addresses or CIDR ranges (e.g. 10.0.0.0/8,::1)',
          'TESSERA_LOGINS_PER_SOURCE: must be an integer from 0 (no bound) to 1000',
        ])
          assert.ok(e.message.includes(expected), `missing "${expected}" in:\n${e.message}`);
        return true;
      },
    );
  });

  it('reads the trusted proxies as a list of addresses and ranges', () => {
    const { config } = loadServiceConfig({ TESSERA_SECRET: SECRET, TESSERA_TRUSTED_PROXIES: ' 10.0.0.0/8, ::1 ,192.168.1.7' });
    assert.deepEqual(config.trustedProxies, ['10.0.0.0/8', '::1', '192.168.1.7']);
    for (const bad of ['10.0.0.0/8/1', '10.0.0', 'fe80::/129', '1.2.3.4/']) {
      assert.throws(() => loadServiceConfig({ TESSERA_SECRET: SECRET, TESSERA_TRUSTED_PROXIES: bad }), /TESSERA_TRUSTED_PROXIES/, bad);
    }
  });

  it('reads the SMTP variables, and requires a sender with a URL', () => {
    const smtp = (env: Record<string, string>) => loadServiceConfig({ TESSERA_SECRET: SECRET, ...env }).config;
    const config = smtp({
      TESSERA_SMTP_URL: 'smtp://mailer:p%40ss@mail.example.org:2525',
      TESSERA_SMTP_FROM: 'tessera@example.org',
      TESSERA_SMTP_TIMEOUT: '2500',
    });
    assert.equal(config.smtpUrl, 'smtp://mailer:p%40ss@mail.example.org:2525');
    assert.equal(config.smtpFrom, 'tessera@example.org');
    assert.equal(config.smtpTimeoutMs, 2500);
    assert.throws(() => smtp({ TESSERA_SMTP_URL: 'smtps://mail.example.org' }), /TESSERA_SMTP_FROM: is required when TESSERA_SMTP_URL is set/);
    for (const bad of ['http://mail.example.org', 'smtp://', 'smtp://mail.example.org/path', 'smtp://mail.example.org?x=1', 'smtp://u:100%@mail.example.org']) {
      assert.throws(
        () => smtp({ TESSERA_SMTP_URL: bad, TESSERA_SMTP_FROM: 'tessera@example.org' }),
        (e: unknown) => e instanceof ConfigError && /TESSERA_SMTP_URL: must be smtp:\/\//.test(e.message),
        bad,
      );
    }
    assert.throws(() => smtp({ TESSERA_SMTP_FROM: 'Tessera <t@example.org>' }), /TESSERA_SMTP_FROM: must be an email address/);
    assert.throws(() => smtp({ TESSERA_SMTP_TIMEOUT: '99' }), /TESSERA_SMTP_TIMEOUT: must be milliseconds from 100 to 120000/);
    assert.throws(() => smtp({ TESSERA_SMTP_TIMEOUT: '120001' }), /TESSERA_SMTP_TIMEOUT/);
  });

  it('reads the shutdown delay and drain timeout in seconds, naming the variable and rule when out of range', () => {
    const load = (env: Record<string, string>) => loadServiceConfig({ TESSERA_SECRET: SECRET, ...env }).config.shutdown;
    assert.deepEqual(load({ TESSERA_SHUTDOWN_DELAY: '15', TESSERA_SHUTDOWN_TIMEOUT: '30' }), { delayMs: 15_000, timeoutMs: 30_000 });
    assert.throws(() => load({ TESSERA_SHUTDOWN_DELAY: '301' }), /TESSERA_SHUTDOWN_DELAY: must be seconds from 0 to 300/);
    assert.throws(() => load({ TESSERA_SHUTDOWN_TIMEOUT: '0' }), /TESSERA_SHUTDOWN_TIMEOUT: must be seconds from 1 to 300/);
    assert.throws(() => load({ TESSERA_SHUTDOWN_TIMEOUT: '10s' }), /TESSERA_SHUTDOWN_TIMEOUT: must be seconds from 1 to 300/);
  });

  it('never quotes the SMTP password in a configuration error', () => {
    assert.throws(
      () => loadServiceConfig({ TESSERA_SECRET: SECRET, TESSERA_SMTP_URL: 'smtp://mailer:hunter2-secret@mail.example.org/x', TESSERA_SMTP_FROM: 'x' }),
      (e: unknown) => e instanceof ConfigError && !e.message.includes('hunter2'),
    );
  });

  it('documents every variable in docs/configuration.md', () => {
    const docs = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    for (const name of Object.keys(serviceVariables)) assert.ok(docs.includes(`\`${name}\``), `${name} is not documented`);
  });
});
