import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// The guard of backends.ts and replicas.ts: under CI, a lost TEST_DATABASE_URL fails the test
// file instead of leaving its PostgreSQL runs out. Each case imports the helper in a child node
// process with an environment of its own, as a test file would.

const helper = (name: string) => fileURLToPath(new URL(`./${name}`, import.meta.url));

function importIn(env: Record<string, string>, source: string) {
  const inherited = { ...process.env };
  delete inherited.TEST_DATABASE_URL;
  delete inherited.CI;
  return spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', source], {
    env: { ...inherited, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

const callBackends = `import { backends } from ${JSON.stringify(helper('backends.ts'))};
console.log('backends: ' + backends().map((backend) => backend.name).join(','));`;
const callReplicas = `import { postgresServerUrl } from ${JSON.stringify(helper('replicas.ts'))};
console.log('server: ' + String(postgresServerUrl()));`;

const MESSAGE = /TEST_DATABASE_URL is unset but CI is set \(CI=true\): .*Set TEST_DATABASE_URL to a PostgreSQL database/;

describe('PostgreSQL runs under CI', () => {
  it('backends() throws, saying what to set, when CI is set and TEST_DATABASE_URL is not', () => {
    const child = importIn({ CI: 'true' }, callBackends);
    assert.notEqual(child.status, 0, `the child should fail; stdout: ${child.stdout}`);
    assert.match(child.stderr, MESSAGE);
    assert.doesNotMatch(child.stdout, /backends:/);
  });

  it('postgresServerUrl() throws the same way for the replica suites', () => {
    const child = importIn({ CI: 'true' }, callReplicas);
    assert.notEqual(child.status, 0, `the child should fail; stdout: ${child.stdout}`);
    assert.match(child.stderr, MESSAGE);
    assert.doesNotMatch(child.stdout, /server:/);
  });

  it('outside CI (unset, "false" or "0") the PostgreSQL runs are left out and it says so', () => {
    for (const env of [{}, { CI: 'false' }, { CI: '0' }, { CI: '' }] as Record<string, string>[]) {
      const child = importIn(env, callBackends);
      assert.equal(child.status, 0, `CI=${JSON.stringify(env)}: ${child.stderr}`);
      assert.match(child.stdout, /# PostgreSQL runs not registered: TEST_DATABASE_URL is unset/);
      assert.match(child.stdout, /^backends: sqlite$/m);
    }
  });

  it('with TEST_DATABASE_URL set, CI changes nothing: both backends are registered', () => {
    const child = importIn({ CI: 'true', TEST_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, callBackends);
    assert.equal(child.status, 0, child.stderr);
    assert.match(child.stdout, /^backends: sqlite,postgres$/m);
  });
});
