import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { exited, spawnCli, waitForOutput } from '../helpers/cli.ts';
import { type DocBlock, rewritePorts } from './doc-blocks.ts';
import { type DocsDemo, freePort } from './docs-demo.ts';

/**
 * Starts `tessera gateway --config` on a doc's YAML example, against the doc's demo, and
 * answers what is wrong with the start: it did not start, it warned (no route, no plugin, a
 * variable configuring nothing), or it started other plugins than the example shows.
 * Its ports come from GATEWAY_PORT/GATEWAY_ADMIN_PORT, which override the file.
 */
export async function yamlGatewayProblems(doc: string, block: DocBlock, demo: DocsDemo): Promise<string[]> {
  const where = `${doc}:${block.line}`;
  const yaml = rewritePorts(block.text, demo.ports);
  const file = join(demo.dir, `gateway-${block.line}.yaml`);
  writeFileSync(file, yaml);
  const shown = (parse(yaml) as { plugins?: { id?: string }[] }).plugins ?? [];
  const expectedIds = shown.map((plugin, n) => plugin.id ?? `token-exchange-${n}`);

  const gateway = spawnCli(['gateway', '--config', file], {
    ...demo.env,
    GATEWAY_PORT: String(await freePort()),
    GATEWAY_ADMIN_PORT: String(await freePort()),
  });
  let stderr = '';
  gateway.stderr!.on('data', (chunk) => (stderr += chunk));
  try {
    const out = await waitForOutput(gateway, 'tessera gateway started', 20_000);
    const started = out
      .split('\n')
      .map((line) => (line.startsWith('{') ? JSON.parse(line) : {}))
      .find((entry) => entry.msg === 'tessera gateway started');
    const problems: string[] = [];
    if (stderr.includes('warning')) problems.push(`${where}: the gateway warned at start-up:\n${stderr}`);
    if (JSON.stringify(started?.plugins) !== JSON.stringify(expectedIds)) {
      problems.push(`${where}: the example shows the plugins ${JSON.stringify(expectedIds)}, the gateway started ${JSON.stringify(started?.plugins)}`);
    }
    return problems;
  } catch (error) {
    return [`${where}: the gateway did not start: ${(error as Error).message}\nstderr:\n${stderr}`];
  } finally {
    if (gateway.exitCode === null) {
      gateway.kill('SIGTERM');
      await exited(gateway);
    }
  }
}
