import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';

const root = new URL('../..', import.meta.url).pathname;
// Run with this Node (24), not whichever `node` the PATH finds first.
const depcruise = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const rulesFile = join(root, '.dependency-cruiser.cjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
  cycle?: { name: string }[];
}
interface RuleSet {
  forbidden: { name: string; comment?: string }[];
  exceptions: { from: string; to: string; reason: string }[];
}

/** Runs dependency-cruiser as `npm test` would from the command line, on `dir` (a tree with src/). */
function cruise(dir: string): Violation[] {
  const out = execFileSync(process.execPath, [depcruise, 'src', '--config', rulesFile, '--output-type', 'json'], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 256 * 2 ** 20,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(out) as { summary: { violations: Violation[] } }).summary.violations;
}

const described = (v: Violation) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`;

describe('Import rules (.dependency-cruiser.cjs, docs/architecture.md)', () => {
  it('src/ breaks none of them: no cycle, no folder pair importing each other, every layer importing only down', () => {
    assert.deepEqual(cruise(root).map(described), []);
  });

  it('allows at most two deliberate exceptions, each with its reason', () => {
    const rules = createRequire(import.meta.url)(rulesFile) as RuleSet;
    assert.ok(rules.exceptions.length <= 2, `${rules.exceptions.length} exceptions`);
    for (const exception of rules.exceptions) assert.match(exception.reason, /\w{3,}.*\s.*\w{3,}/, `${exception.from} → ${exception.to} says why`);
    for (const rule of rules.forbidden) assert.ok(rule.comment && rule.comment.length > 20, `rule ${rule.name} says why it exists`);
  });

  describe('catch what they are for (a small tree that breaks each)', () => {
    const trees: string[] = [];
    after(() => {
      for (const tree of trees) rmSync(tree, { recursive: true, force: true });
    });
    const tree = (files: Record<string, string>) => {
      const dir = mkdtempSync(join(tmpdir(), 'tessera-rules-'));
      trees.push(dir);
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dir, path)), { recursive: true });
        writeFileSync(join(dir, path), text);
      }
      return dir;
    };
    const rulesBroken = (files: Record<string, string>) => [...new Set(cruise(tree(files)).map((v) => v.rule.name))].sort();

    it('a cycle between two modules, and so between their folders', () => {
      assert.deepEqual(
        rulesBroken({
          'src/persons/a.ts': "import { b } from '../clients/b.ts';\nexport const a = () => b;\n",
          'src/clients/b.ts': "import { a } from '../persons/a.ts';\nexport const b = () => a;\n",
        }),
        ['no-cycles', 'no-folder-cycles'],
      );
    });

    it('two folders importing each other through different modules', () => {
      assert.deepEqual(
        rulesBroken({
          'src/persons/a.ts': "import { c } from '../clients/c.ts';\nexport const a = c;\n",
          'src/persons/d.ts': 'export const d = 1;\n',
          'src/clients/c.ts': 'export const c = 1;\n',
          'src/clients/e.ts': "import { d } from '../persons/d.ts';\nexport const e = d;\n",
        }),
        ['no-folder-cycles'],
      );
    });

    it('the toolkit importing a feature, a leaf importing the store, the store importing a feature', () => {
      assert.deepEqual(
        rulesBroken({
          'src/http/envelope.ts': "import { p } from '../persons/operations.ts';\nexport const e = p;\n",
          'src/persons/operations.ts': 'export const p = 1;\n',
          'src/validation/handle.ts': "import { s } from '../store/store.ts';\nexport const h = s;\n",
          'src/store/store.ts': "import { v } from '../verification/verify.ts';\nexport const s = v;\n",
          'src/verification/verify.ts': 'export const v = 1;\n',
        }),
        ['leaves-import-no-product', 'store-imports-no-feature', 'toolkit-imports-no-feature'],
      );
    });

    it('a feature importing the composition root, or another feature’s routes; the console importing routes', () => {
      assert.deepEqual(
        rulesBroken({
          'src/service/app.ts': 'export const app = 1;\n',
          'src/persons/routes.ts': 'export const r = 1;\n',
          'src/clients/operations.ts': "import { app } from '../service/app.ts';\nimport { r } from '../persons/routes.ts';\nexport const o = app + r;\n",
          'src/console/admin/persons.ts': "import { r } from '../../persons/routes.ts';\nexport const c = r;\n",
        }),
        ['console-uses-operations', 'features-do-not-import-routes', 'nothing-imports-a-root'],
      );
    });

    it('the gateway importing the service, and the service importing the gateway', () => {
      assert.deepEqual(
        rulesBroken({
          'src/gateway/proxy/proxy-server.ts': "import { s } from '../../store/store.ts';\nexport const g = s;\n",
          'src/store/store.ts': 'export const s = 1;\n',
          'src/oauth/token-endpoint.ts': "import { g } from '../gateway/proxy/proxy-server.ts';\nexport const t = g;\n",
        }),
        ['gateway-stays-apart', 'nothing-imports-a-root', 'only-roots-import-the-gateway'],
      );
    });
  });
});

describe('File size', () => {
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
    );

  it('keeps every .ts file under src/ at 250 lines or fewer', () => {
    const long = sources(join(root, 'src'))
      .map((file) => ({ file: file.slice(root.length), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > 250);
    assert.deepEqual(long, []);
  });
});
