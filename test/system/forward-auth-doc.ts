import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/**
 * The configuration docs/forward-auth.md shows for `proxy`, the block after its
 * `<!-- forward-auth: proxy -->` marker, with the doc's ports replaced by this run's: the
 * proxy's 8090, the forward-auth port's 9100 and the application's 9000.
 */
export function docConfiguration(proxy: string, ports: { proxy: number; forwardAuth: number; upstream: number }): string {
  const doc = readFileSync(new URL('../../docs/forward-auth.md', import.meta.url), 'utf8');
  const block = new RegExp(`<!-- forward-auth: ${proxy} -->\\n\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(doc)?.[1];
  assert.ok(block, `docs/forward-auth.md has no block marked <!-- forward-auth: ${proxy} -->`);
  const map: Record<string, number> = { '8090': ports.proxy, '9100': ports.forwardAuth, '9000': ports.upstream };
  return block.replace(/(?<=127\.0\.0\.1:|:)(8090|9100|9000)\b/g, (port) => String(map[port]));
}
