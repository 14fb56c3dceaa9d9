import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DocBlock, fillPrintedValues, rewritePorts } from './doc-blocks.ts';
import type { DocsDemo } from './docs-demo.ts';
import { compareOutput } from './output-shape.ts';

const repository = fileURLToPath(new URL('../..', import.meta.url));

/** The tools the docs' examples use; a missing one is named rather than failing an example. */
export function missingTools(tools: readonly string[]): string[] {
  return tools.filter((tool) => spawnSync('bash', ['-c', `command -v ${tool}`]).status !== 0);
}

/** A block and what it printed. */
export interface BlockRun {
  block: DocBlock;
  output: string;
}

/**
 * Runs the shell blocks in order in one bash session, started in the repository as the docs
 * assume, with the reader's environment (the demo's data directory). stderr is merged into
 * stdout as a terminal shows it (the docs' `tee /dev/stderr`). Resolves with each block's
 * output, or rejects naming the block that failed and what it printed.
 */
export async function runShellBlocks(doc: string, blocks: DocBlock[], demo: DocsDemo, timeoutMs = 120_000): Promise<BlockRun[]> {
  const marker = `@@docs-block-${randomUUID()}`;
  const path = join(demo.dir, `${doc.replace(/\W/g, '-')}.sh`);
  // The last line the session prints, with its exit status: the end of the output even while
  // a server an example left in the background still holds the pipe open.
  const script = ['set -euo pipefail', `trap 'printf "\\n${marker}-exit %s\\n" $?' EXIT`];
  blocks.forEach((block, index) => {
    const text = rewritePorts(block.text, demo.ports);
    // A file the reader saves is written as they would save it: its text, untouched by the shell.
    const step = block.file === undefined ? fillPrintedValues(text, demo.printed) : `cat > "${block.file}" <<'${marker}-file'\n${text}${marker}-file`;
    script.push(`printf '\\n%s\\n' '${marker}-${index}'`, step);
  });
  writeFileSync(path, `${script.join('\n')}\n`);

  // Through `| cat`, so stdout and stderr are one real pipe: the docs' `tee /dev/stderr` cannot
  // open the socket a Node pipe is. Its own process group, so whatever an example starts in
  // the background ends with it.
  const bash = spawn('bash', ['-c', 'bash "$0" 2>&1 | cat', path], {
    cwd: repository,
    env: { PATH: process.env.PATH ?? '', ...demo.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let printed = '';
  const exitLine = new RegExp(`\\n${marker}-exit (\\d+)\\n`);
  const closed = new Promise<void>((resolve) => bash.once('close', () => resolve()));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), timeoutMs);
    const done = (status: number | null) => {
      clearTimeout(timer);
      resolve(status);
    };
    bash.stdout.on('data', (chunk) => {
      printed += chunk;
      const exit = exitLine.exec(printed);
      if (exit) done(Number(exit[1]));
    });
    // 'close', not 'exit': a process can exit before its last output is read, and the exit line
    // would then be missed (seen under load as "exit status -1" for a block that had succeeded).
    bash.once('close', () => done(exitLine.test(printed) ? Number(exitLine.exec(printed)![1]) : -1));
  });
  // A reader's script ends with the doc: whatever an example started must be stopped by the
  // example (regression: `kill %1` stopped npm and left the gateway it started running).
  const left = code === 0 ? await leftRunning(bash.pid!, closed) : undefined;
  try {
    process.kill(-bash.pid!, 'SIGTERM');
  } catch {
    // the group has ended: nothing was left running
  }
  if (left !== undefined)
    throw new Error(`${doc}: its examples left processes running after the last block (started in the background and never stopped):\n${left}`);

  const chunks = printed
    .replace(exitLine, '\n')
    .split(new RegExp(`\\n?${marker}-\\d+\\n`))
    .slice(1);
  const runs = chunks.map((output, index) => ({ block: blocks[index]!, output }));
  if (code !== 0) {
    const last = runs.at(-1);
    const where = last ? `the block at ${doc}:${last.block.line}` : `${doc} before its first block`;
    throw new Error(
      `${where} failed (${code === null ? `no end within ${timeoutMs} ms` : `exit status ${code}`}); it printed:\n${last?.output ?? printed}\n--- the block:\n${last?.block.text ?? ''}`,
    );
  }
  return runs;
}

/** Every difference between each block's output and the output its doc shows, named by line. */
export function outputDifferences(doc: string, runs: BlockRun[], demo: DocsDemo): string[] {
  return runs.flatMap(({ block, output }) => {
    if (!block.output) return [];
    const expected = rewritePorts(block.output.text, demo.ports);
    const differences = compareOutput(expected, output);
    return differences.length === 0
      ? []
      : [`${doc}:${block.output.line} (output of the block at line ${block.line}):\n  ${differences.join('\n  ')}\n  --- printed:\n${output}`];
  });
}

/**
 * What of the session's process group still runs once the session has ended: its pipe closed
 * (a server left in the background holds it open) and its group empty, each given a few
 * seconds (a server stopped without `wait` may still be draining). Undefined when nothing is.
 */
async function leftRunning(group: number, closed: Promise<void>): Promise<string | undefined> {
  const deadline = Date.now() + 10_000;
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 5_000))]);
  for (;;) {
    try {
      process.kill(-group, 0);
    } catch {
      return undefined; // ESRCH: no process of the group is left
    }
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const listed = spawnSync('ps', ['-e', '-o', 'pgid=,pid=,args='], { encoding: 'utf8' });
  const members = (listed.stdout ?? '').split('\n').filter((line) => line.trim().split(/\s+/)[0] === String(group));
  return members.length > 0 ? members.join('\n') : `processes of group ${group}`;
}
