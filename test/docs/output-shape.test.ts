import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { extractBlocks, fillPrintedValues, rewritePorts } from './doc-blocks.ts';
import { compareOutput, parseOutput } from './output-shape.ts';
import { missingTools } from './run-shell-blocks.ts';

describe("compareOutput: a doc's shown output against a real one", () => {
  it('accepts other ids, tokens, secrets, times, key ids and cursors of the same kind', () => {
    const doc =
      '{"result":{"id":"per_01m80","token":"eyJhb…Gw","secret":"tcs_3kPB…o7Vls","created_at":"2026-11-22T03:48:35.344Z","kid":"01m80sca","next_cursor":"WyJ","exp":1795326550}}';
    const run =
      '{"result":{"id":"per_02zz","token":"eyJxyz.abc.def","secret":"tcs_other","created_at":"2027-01-01T00:00:00.000Z","kid":"zzz","next_cursor":"Qq","exp":1}}';
    assert.deepEqual(compareOutput(doc, run), []);
  });

  it('names a missing key, an extra key, another code and another literal string', () => {
    const doc = '{"errors":[{"httpcode":409,"message":"already used","code":"CONFLICT"}]}';
    assert.deepEqual(compareOutput(doc, '{"errors":[{"httpcode":400,"message":"already used","code":"INVALID_FIELD","extra":1}]}'), [
      'item 1.errors[0]: not in the doc: extra=1',
      'item 1.errors[0].httpcode: the doc shows 409, got 400',
      'item 1.errors[0].code: the doc shows "CONFLICT", got "INVALID_FIELD"',
    ]);
    assert.deepEqual(compareOutput('{"error":"invalid_request"}', '{"errors":"invalid_request"}'), [
      'item 1: missing error (got {"errors":"invalid_request"})',
      'item 1: not in the doc: errors="invalid_request"',
    ]);
  });

  it('takes every id kind of the service as per-run, in JSON and in text lines', () => {
    for (const id of ['con_01m85t1k2q', 'idn_01m85t1k4c', 'evf_01m85t1k9z', 'tscim_0b1Xk2F3', 'tsi_Tmnh…uNyA']) {
      const other = `${id.split('_')[0]}_zz${id.length}`;
      assert.deepEqual(compareOutput(`{"id":"${id}"}\n${id} is made\n`, `{"id":"${other}"}\n${other} is made\n`), [], id);
    }
  });

  it('does not take an id of one kind for another', () => {
    assert.deepEqual(compareOutput('{"act":{"sub":"cli_01"}}', '{"act":{"sub":"per_01"}}'), ['item 1.act.sub: the doc shows "cli_01", got "per_01"']);
  });

  it('lets a counted-down lifetime drift a little, not a lot', () => {
    assert.deepEqual(compareOutput('{"expires_in":3594}', '{"expires_in":3599}'), []);
    assert.equal(compareOutput('{"expires_in":3600}', '{"expires_in":600}').length, 1);
  });

  it('compares text lines with their ids reduced, and the count of items', () => {
    assert.deepEqual(
      compareOutput('HTTP 204\nNew signing key 01m80sd448twfb5ecgw33z1z3e is active\n', 'HTTP 204\nNew signing key 01zzzzzzzzzzzzzzzzzzzzzzzz is active\n'),
      [],
    );
    assert.deepEqual(compareOutput('HTTP 204\n', 'HTTP 200\n'), ['item 1: the doc shows "HTTP 204", got "HTTP 200"']);
    assert.deepEqual(compareOutput('10\n', '10\n{"a":1}'), ['item 2: not in the doc: JSON {"a":1}']);
    assert.deepEqual(compareOutput('Date: Sun, 22 Nov 2026 04:49:13 GMT\n', 'Date: Mon, 23 Nov 2026 01:00:00 GMT\n'), []);
  });

  it('reads JSON values glued together, spread over lines, and among text', () => {
    assert.deepEqual(parseOutput('{"a":1}{"b":[2]}\n{\n  "c": "}"\n}\nexit 2\n'), [
      { json: { a: 1 } },
      { json: { b: [2] } },
      { json: { c: '}' } },
      { text: 'exit 2' },
    ]);
  });
});

describe('extractBlocks: the runnable blocks of a doc', () => {
  const doc = [
    '```sh',
    'echo hi',
    '```',
    '',
    '```json',
    '{"a":1}',
    '```',
    'Prose.',
    '```json',
    '{"not":"an output"}',
    '```',
    '<!-- no-run: starts a server in the foreground -->',
    '```sh',
    'npm start',
    '```',
    '```yaml',
    'plugins: []',
    '```',
  ].join('\n');

  it('pairs a shell block with the output block right after it, and reads no-run markers', () => {
    const blocks = extractBlocks(doc);
    assert.deepEqual(
      blocks.map((b) => [b.line, b.lang, b.output?.line, b.noRun]),
      [
        [1, 'sh', 5, undefined],
        [9, 'json', undefined, undefined],
        [13, 'sh', undefined, 'starts a server in the foreground'],
        [16, 'yaml', undefined, undefined],
      ],
    );
  });

  it('refuses a no-run marker without a reason', () => {
    assert.throws(() => extractBlocks('<!-- no-run: -->\n```sh\nnpm start\n```\n'), /must give its reason/);
  });

  it('fills the lines marked printed by npm start, and refuses a name it does not know', () => {
    assert.equal(
      fillPrintedValues("ORG='org_…'   # the organisation id printed by npm start\nX=1", { ORG: 'org_9' }),
      "ORG='org_9'   # the organisation id printed by npm start\nX=1",
    );
    assert.throws(() => fillPrintedValues("SECRET='…'  # printed by npm start", {}), /no value of npm start named SECRET/);
  });

  it("rewrites the docs' ports where they name a port, and nothing else", () => {
    assert.equal(
      rewritePorts('curl http://127.0.0.1:8080/x GATEWAY_PORT=8010 port: 8000 .listen(8081, id 8080', { 8080: 1, 8010: 2, 8000: 3, 8081: 4 }),
      'curl http://127.0.0.1:1/x GATEWAY_PORT=2 port: 3 .listen(4, id 8080',
    );
  });
});

describe("missingTools: the docs' tools not on PATH", () => {
  it('names the missing ones only', () => {
    assert.deepEqual(missingTools(['bash', 'no-such-tool-for-the-docs']), ['no-such-tool-for-the-docs']);
  });
});
