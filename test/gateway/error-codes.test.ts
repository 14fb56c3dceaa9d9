import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const docs = readFileSync(new URL('../../docs/gateway.md', import.meta.url), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []);
}

describe('Gateway error codes', () => {
  it('has a row with its status in docs/gateway.md for every code src/gateway answers with', () => {
    const thrown = new Map<string, string>();
    for (const file of sources(new URL('../../src/gateway', import.meta.url).pathname)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/GatewayError\((\d{3}|status),\s*'(GATEWAY_[A-Z_]+)'|\[(\d{3}), '(GATEWAY_[A-Z_]+)'/g)) {
        thrown.set((match[2] ?? match[4])!, (match[1] ?? match[3])!);
      }
    }
    assert.ok(thrown.size >= 20, `the scan found the codes (${thrown.size})`);
    for (const [code, status] of thrown) {
      // Rows of the error table: | status | `CODE` | when |
      const row = docs.split('\n').find((line) => new RegExp(`^\\| \\d{3} \\| \`${code}\` \\|`).test(line));
      assert.ok(row, `docs/gateway.md has no error-table row for ${code}`);
      if (status !== 'status') assert.ok(row.startsWith(`| ${status} |`), `the row for ${code} gives status ${status}`);
    }
  });
});
