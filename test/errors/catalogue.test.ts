import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { apiErrorStatus, gatewayErrorStatus, oauthErrorStatus, scimErrorStatus } from '../../src/errors/catalogue.ts';

const docs = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
const srcDir = new URL('../../src', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/**
 * Every code src/ answers with, read where errors are made: `new ApiError('X'`,
 * `new GatewayError('X'`, `new ScimError('x'`, `oauthError('x'`, `new OAuthError('x'`, a code chosen by a
 * condition (`? 'X' : 'Y'`), a table row or its fallback (`KEY: ['X', 'message']`, `?? ['X', …]`) and the OAuth serializer's
 * fallback (`error: 'server_error'`). The catalogue file itself is not a use.
 */
function answeredCodes(): Set<string> {
  const sites = [
    // \s*: the formatter may put the code on a line of its own.
    /new (?:ApiError|GatewayError|OAuthError|ScimError)\(\s*'([A-Za-z_]+)'/g,
    /oauthError\('([a-z_]+)'/g,
    /\? '([A-Z_]{4,})' : '([A-Z_]{4,})'/g,
    /(?::|\?\?) \['([A-Z][A-Z_]+)', ['`]/g,
    /\berror: '([a-z_]+)'/g,
  ];
  const codes = new Set<string>();
  for (const file of sources(srcDir)) {
    if (file.endsWith(join('errors', 'catalogue.ts'))) continue;
    const text = readFileSync(file, 'utf8');
    for (const site of sites) for (const match of text.matchAll(site)) for (const code of match.slice(1)) if (code) codes.add(code);
  }
  return codes;
}

/** The rows of the table under a docs/errors.md heading: `| \`CODE\` | status | …`. */
function documentedRows(heading: string): Map<string, string> {
  const start = docs.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `docs/errors.md has a section "${heading}"`);
  const end = docs.indexOf('\n## ', start + 1);
  const rows = new Map<string, string>();
  for (const line of docs.slice(start, end < 0 ? undefined : end).split('\n')) {
    const match = /^\| `([A-Za-z_]+)` \| (\d{3}) \|/.exec(line);
    if (match) rows.set(match[1]!, match[2]!);
  }
  return rows;
}

const families = [
  { name: 'service API', heading: 'Error codes', statuses: apiErrorStatus as Record<string, number> },
  { name: 'OAuth', heading: 'OAuth errors', statuses: oauthErrorStatus as Record<string, number> },
  { name: 'gateway', heading: 'Gateway errors', statuses: gatewayErrorStatus as Record<string, number> },
  { name: 'SCIM', heading: 'SCIM errors', statuses: scimErrorStatus as Record<string, number> },
];

describe('Error catalogue', () => {
  const answered = answeredCodes();
  const catalogued = new Set(families.flatMap((family) => Object.keys(family.statuses)));

  it('finds the codes src/ answers with (the scan works)', () => {
    assert.ok(answered.size >= 50, `only ${answered.size} codes found`);
  });

  it('catalogues every code src/ answers with', () => {
    assert.deepEqual(
      [...answered].filter((code) => !catalogued.has(code)),
      [],
    );
  });

  for (const { name, heading, statuses } of families) {
    it(`answers every catalogued ${name} code somewhere in src/`, () => {
      assert.deepEqual(
        Object.keys(statuses).filter((code) => !answered.has(code)),
        [],
      );
    });

    it(`documents every ${name} code with its status under "${heading}" in docs/errors.md, and no other`, () => {
      const rows = documentedRows(heading);
      assert.deepEqual(Object.fromEntries(rows), Object.fromEntries(Object.entries(statuses).map(([code, status]) => [code, String(status)])));
    });
  }
});
