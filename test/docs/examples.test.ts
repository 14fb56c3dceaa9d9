import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { extractBlocks, runsInSession } from './doc-blocks.ts';
import { startDocsDemo } from './docs-demo.ts';
import { missingTools, outputDifferences, runShellBlocks } from './run-shell-blocks.ts';
import { yamlGatewayProblems } from './start-yaml-gateway.ts';

// Every shell and YAML example of the docs and the README runs against a fresh demo of its
// own doc, so an example that drifts from the code fails here (issue 10). The conventions a
// doc follows are in doc-blocks.ts.
const root = new URL('../../', import.meta.url);
const docs = [
  'README.md',
  ...readdirSync(new URL('docs/', root))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

// What a reader of the docs has: the examples use nothing else (checked below), so `npm test`
// runs them on a machine with only Node, npm and curl.
const TOOLS = ['bash', 'curl', 'node'];

describe('the examples of the docs run as written', { concurrency: true }, () => {
  for (const doc of docs) {
    const blocks = extractBlocks(readFileSync(fileURLToPath(new URL(doc, root)), 'utf8'));
    const shell = blocks.filter(runsInSession);
    // A YAML file the session saves is started by its shell blocks, with the values they made.
    const yaml = blocks.filter((b) => b.lang === 'yaml' && b.noRun === undefined && b.file === undefined);
    if (shell.length === 0 && yaml.length === 0) continue;

    it(`${doc}: ${shell.length} shell blocks in one session, ${yaml.length} gateway configurations`, async () => {
      const missing = missingTools(TOOLS);
      assert.deepEqual(missing, [], `${doc}'s examples need ${missing.join(', ')}, not found on PATH`);
      const demo = await startDocsDemo();
      try {
        const runs = await runShellBlocks(doc, shell, demo);
        assert.equal(runs.length, shell.length, 'every shell block ran');
        const problems = outputDifferences(doc, runs, demo);
        for (const block of yaml) problems.push(...(await yamlGatewayProblems(doc, block, demo)));
        if (problems.length > 0) assert.fail(`${doc}: examples that do not do what the doc shows:\n\n${problems.join('\n\n')}`);
      } finally {
        await demo.close();
      }
    });
  }
});

describe('the examples need only what their readers have', () => {
  it('call no program beyond bash, Node, npm, curl and the repository (bin/json reads JSON in place of jq)', () => {
    const others = docs.flatMap((doc) =>
      extractBlocks(readFileSync(fileURLToPath(new URL(doc, root)), 'utf8'))
        .filter(runsInSession)
        .filter((b) => /(^|[\s|;&($`])(jq|python3?|openssl|perl|ruby)\s/m.test(b.text))
        .map((b) => `${doc}:${b.line}`),
    );
    assert.deepEqual(others, [], 'examples that call jq, python, openssl, perl or ruby');
  });
});

describe('blocks that do not run say why', () => {
  it('only start-up and production commands are marked no-run, each with a reason', () => {
    const marked = docs.flatMap((doc) =>
      extractBlocks(readFileSync(fileURLToPath(new URL(doc, root)), 'utf8'))
        .filter((b) => b.noRun !== undefined)
        .map((b) => `${doc}:${b.line} ${b.noRun}`),
    );
    for (const entry of marked) assert.match(entry, /\S+:\d+ \S.{10,}/, 'a reason of a few words');
    assert.ok(marked.length <= 8, `few blocks are kept from running:\n${marked.join('\n')}`);
  });
});
