import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.ts';

// Issue 27 §3: the README linked ../shared/…, outside the repository (absent from a clone), and
// did not list `tessera dev passkey` with the other commands.
const root = fileURLToPath(new URL('../../', import.meta.url));
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('the README and the docs point inside the repository', () => {
  it('every relative link names a file or folder of the repository that exists', () => {
    const broken: string[] = [];
    for (const doc of docs) {
      const text = readFileSync(join(root, doc), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:|#)/.test(target!)) continue;
        const path = resolve(dirname(join(root, doc)), decodeURIComponent(target!.split('#')[0]!));
        const inside = !relative(root, path).startsWith('..');
        if (!inside || !existsSync(path)) broken.push(`${doc}: (${target}) ${inside ? 'does not exist' : 'is outside the repository'}`);
      }
      if (text.includes('../shared/')) broken.push(`${doc}: names ../shared/, outside the repository`);
    }
    assert.deepEqual(broken, []);
  });

  it("the README's table of commands lists every command of tessera --help", async () => {
    const help = await runCli(['--help']);
    const commands = [
      ...help.stdout
        .split('\nCommands:\n')[1]!
        .split('\n\n')[0]!
        .matchAll(/^ {2}(\S+(?: \S+)?) {2,}/gm),
    ].map((m) => m[1]!);
    assert.ok(commands.includes('dev passkey') && commands.includes('demo token'), help.stdout);
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const cliGuide = readFileSync(join(root, 'docs/cli.md'), 'utf8');
    // The admin commands that manage an organisation's records are one row of the README, pointing
    // to docs/cli.md, whose table must then list each of them.
    const listed = (command: string) =>
      readme.includes(`| \`npm run --silent tessera -- ${command}`) || (command.startsWith('admin ') && cliGuide.includes(`| \`${command}`));
    assert.ok(readme.includes('[docs/cli.md](docs/cli.md)'));
    const missing = commands.filter((command) => !listed(command));
    assert.deepEqual(missing, [], 'a row "| `npm run --silent tessera -- <command> …` |" for each (admin commands: or in docs/cli.md\'s table)');
  });
});
