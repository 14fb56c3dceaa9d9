import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { errorCatalogue } from '../../src/errors/catalogue.ts';

const docs = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []);
}

describe('Error catalogue', () => {
  for (const [code, { status }] of Object.entries(errorCatalogue)) {
    it(`documents ${code} with its status in docs/errors.md`, () => {
      const row = docs.split('\n').find((line) => line.includes(`\`${code}\``) && line.trim().startsWith('|'));
      assert.ok(row, `docs/errors.md has no table row for \`${code}\``);
      assert.ok(row.includes(String(status)), `the row for ${code} does not give status ${status}`);
    });
  }

  it('holds every code the source emits as a string literal', () => {
    const srcDir = new URL('../../src', import.meta.url).pathname;
    const emitted = new Set<string>();
    for (const file of sources(srcDir)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/code: '([A-Z_]+)'|new ApiError\('([A-Z_]+)'/g)) emitted.add((match[1] ?? match[2])!);
    }
    const unknown = [...emitted].filter((code) => !(code in errorCatalogue) && !['CONFIG_INVALID', 'USAGE', 'INVALID_ARGUMENT'].includes(code));
    assert.deepEqual(unknown, []);
    assert.ok(emitted.size >= 10, 'the scan found the emitted codes');
  });
});
