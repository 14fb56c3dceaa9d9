import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

const root = new URL('../..', import.meta.url).pathname;
const docs = readFileSync(join(root, 'docs/testing.md'), 'utf8');
const strykerConfig = (await import(new URL('../../stryker.config.mjs', import.meta.url).href)).default as {
  mutate: string[];
  tap: { testFiles: string[] };
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

interface Disable {
  file: string;
  line: number;
  mutators: string;
  reason: string;
}

/** Every `// Stryker disable …` comment in src/: each one hides a mutant from the score. */
function disables(): Disable[] {
  return sources(join(root, 'src')).flatMap((path) =>
    readFileSync(path, 'utf8')
      .split('\n')
      .flatMap((text, index) => {
        const match = /\/\/\s*Stryker disable(.*)$/.exec(text);
        if (!match) return [];
        const rule = /^ next-line ([A-Za-z,]+): (.+)$/.exec(match[1] ?? '');
        return [{ file: relative(root, path), line: index + 1, mutators: rule?.[1] ?? '', reason: rule?.[2] ?? '' }];
      }),
  );
}

/** The rows of the table under "### Equivalent mutants": | `file` | mutators | why |. */
function documentedEquivalents(): { file: string; mutators: string; reason: string }[] {
  const section = docs.split('### Equivalent mutants')[1]?.split(/\n#/)[0] ?? '';
  return [...section.matchAll(/^\| `(src\/[^`]+)` \| ([A-Za-z, ]+) \| (.+?) \|$/gm)].map((m) => ({
    file: m[1] ?? '',
    mutators: (m[2] ?? '').replaceAll(' ', ''),
    reason: m[3] ?? '',
  }));
}

describe('docs/testing.md, mutation testing', () => {
  it('every Stryker disable comment in src/ names one line, its mutators and why the mutant is equivalent', () => {
    for (const d of disables()) {
      assert.ok(d.mutators && d.reason, `${d.file}:${d.line}: write "// Stryker disable next-line <Mutator>: <why it is equivalent>"`);
    }
  });

  it('lists every mutant hidden from the score, with the reason the code gives, and no row without its comment', () => {
    const rows = documentedEquivalents();
    const found = disables();
    for (const d of found) {
      assert.ok(
        rows.some((row) => row.file === d.file && row.mutators === d.mutators && row.reason === d.reason),
        `${d.file}:${d.line} (${d.mutators}) has no row "| \`${d.file}\` | ${d.mutators} | ${d.reason} |" under "### Equivalent mutants"`,
      );
    }
    for (const row of rows) {
      assert.ok(
        found.some((d) => d.file === row.file && d.mutators === row.mutators && d.reason === row.reason),
        `docs/testing.md lists ${row.file} (${row.mutators}) but src/ has no such comment`,
      );
    }
  });

  it('shows the scope the mutation run is configured with', () => {
    for (const glob of strykerConfig.mutate) assert.ok(docs.includes(`\`${glob}\``), `docs/testing.md does not list ${glob} in the scope`);
    for (const glob of strykerConfig.tap.testFiles) assert.ok(docs.includes(`\`${glob}\``), `docs/testing.md does not list the test files ${glob}`);
  });
});
