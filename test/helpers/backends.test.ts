import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  delete inherited.TESSERA_TEST_NOTICE_SHOWN; // set under npm test, whose global setup said it
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

// Issue 27 §3: the notice was printed once per test file (101 times) and named a README
// heading, "Tests", that is called "Test it".
describe('the notice that PostgreSQL runs are left out', () => {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const inherited = { ...process.env };
  delete inherited.TEST_DATABASE_URL;
  delete inherited.CI;
  delete inherited.TESSERA_TEST_NOTICE_SHOWN;
  delete inherited.NODE_TEST_CONTEXT; // else the inner runner reports to this one, not to its stdout

  it('is printed once per npm test run, however many files, and names a heading of the README', () => {
    const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { test: string } }).scripts.test;
    const setup = /--test-global-setup=(\S+)/.exec(script)?.[1];
    assert.equal(setup, 'test/global-setup.ts', 'npm test runs the global setup');
    const dir = mkdtempSync(join(tmpdir(), 'tessera-notice-'));
    try {
      const files = ['one', 'two', 'three'].map((name) => {
        const file = join(dir, `${name}.test.ts`);
        writeFileSync(file, `import { it } from 'node:test';\n${callBackends}\nit('${name}', () => {});\n`);
        return file;
      });
      const run = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', '--test', `--test-global-setup=${setup}`, ...files], {
        cwd: root,
        env: inherited,
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(run.status, 0, run.stdout + run.stderr);
      const notices = run.stdout.split('\n').filter((line) => line.includes('not registered: TEST_DATABASE_URL is unset'));
      assert.equal(notices.length, 1, run.stdout);
      const heading = /see README, "([^"]+)"/.exec(notices[0]!)?.[1];
      assert.ok(heading, notices[0]);
      assert.match(readFileSync(join(root, 'README.md'), 'utf8'), new RegExp(`^## ${heading}$`, 'm'), `the README has a heading "${heading}"`);
      assert.equal(run.stdout.match(/backends: sqlite/g)?.length, 3, 'each file still ran SQLite only');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is printed once per process when a file runs on its own', () => {
    const child = importIn({}, `${callBackends}\nbackends();\n${callReplicas}`);
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.match(/not registered: TEST_DATABASE_URL is unset/g)?.length, 1, child.stdout);
  });
});
