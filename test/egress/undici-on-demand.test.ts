import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const PROBE = fileURLToPath(new URL('../telemetry/fixtures/service-probe.ts', import.meta.url));

describe('undici is loaded on the first outbound request, not at start-up (issue 30, service memory)', () => {
  it('a started service that answered a request has not loaded undici; it has loaded fastify', async () => {
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_') && !name.startsWith('TESSERA_')));
    const { stdout } = await promisify(execFile)(process.execPath, ['--disable-warning=ExperimentalWarning', PROBE], { env: inherited });
    const { status, packages } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: number; packages: string[] };
    assert.equal(status, 200);
    assert.ok(packages.includes('fastify'), `the probe sees packages: ${packages.join(', ')}`);
    assert.ok(!packages.includes('undici'), `undici loaded at start-up: ${packages.join(', ')}`);
  });
});
