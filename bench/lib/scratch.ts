import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
process.once('exit', () => {
  for (const directory of made) rmSync(directory, { recursive: true, force: true });
});

/**
 * A fresh directory under the system's temporary one, removed when the benchmark process
 * exits: each SQLite row leaves a database of some 40 MB, and every run of `npm run bench`
 * (or of bench:compare's rounds) would otherwise keep its own.
 */
export function scratchDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  made.push(directory);
  return directory;
}
