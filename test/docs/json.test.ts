import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// bin/json, the docs' stand-in for jq: the examples run it on every `npm test` (examples.test.ts);
// these pin the jq behaviour the docs' printed outputs rely on.
const script = fileURLToPath(new URL('../../bin/json', import.meta.url));

function json(input: string, ...args: string[]): string {
  const run = spawnSync(process.execPath, [script, ...args], { input, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

const PAGE = JSON.stringify({ result: [{ id: 'p1', label: 'phone', params: { n: 2 } }, { id: 'p2' }], meta: { total: 2 } });

describe('bin/json', () => {
  it('prints the document indented, as `jq .`', () => {
    assert.equal(json('{"a":[1,{"b":null}]}'), '{\n  "a": [\n    1,\n    {\n      "b": null\n    }\n  ]\n}\n');
  });

  it('prints a string as it is and anything else as one line, as `jq -r` and `jq -c`', () => {
    assert.equal(json(PAGE, '.result[0].id'), 'p1\n');
    assert.equal(json(PAGE, '.meta'), '{"total":2}\n');
    assert.equal(json(PAGE, '.meta.total'), '2\n');
    assert.equal(json(PAGE, 'JSON.stringify($.result[0].id)'), '"p1"\n');
  });

  it("pipes each expression into the next, with the value's fields as names and a missing one as null", () => {
    assert.equal(json(PAGE, '.result[0]', '{id, label, count: params.n, state}'), '{"id":"p1","label":"phone","count":2,"state":null}\n');
    assert.equal(json(PAGE, '.nothing'), 'null\n');
  });

  it('goes on with each element after an expression ending in [], one a line', () => {
    assert.equal(json(PAGE, '.result[]', '{id}'), '{"id":"p1"}\n{"id":"p2"}\n');
  });

  it('takes name=value arguments as variables, and input that is not JSON as a string', () => {
    assert.equal(json(PAGE, '{mine: $.result[0].id === who}', 'who=p1'), '{"mine":true}\n');
    const token = ['{"alg":"ES256"}', '{"sub":"ada","act":{"sub":"cli"}}', 'sig'].map((p) => Buffer.from(p).toString('base64url')).join('.');
    assert.equal(json(`${token}\n`, 'jwt($)', '{sub, act: act.sub}'), '{"sub":"ada","act":"cli"}\n');
    assert.equal(json(token, '--pretty', 'jwt($, 0)'), '{\n  "alg": "ES256"\n}\n');
  });
});
