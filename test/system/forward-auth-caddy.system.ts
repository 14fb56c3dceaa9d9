import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { docConfiguration } from './forward-auth-doc.ts';
import { type ForwardAuthStack, forwardsDelegated, freePort, requireProgram, runProxy, startForwardAuthStack } from './forward-auth-stack.ts';

const codeOf = async (answer: Response) => ((await answer.json()) as { errors: { code: string }[] }).errors[0]!.code;

describe("Caddy forward_auth in front of the gateway's forward-auth port, configured as docs/forward-auth.md shows", () => {
  let stack: ForwardAuthStack;
  let caddy: { stop(): Promise<void> };
  let proxy: string;
  const dir = mkdtempSync(join(tmpdir(), 'fa-caddy-'));

  before(async () => {
    const program = requireProgram('caddy', 'caddy');
    stack = await startForwardAuthStack();
    const port = await freePort();
    writeFileSync(join(dir, 'Caddyfile'), docConfiguration('caddy', { proxy: port, forwardAuth: stack.forwardAuthPort, upstream: stack.upstream.port }));
    proxy = `http://127.0.0.1:${port}`;
    // Caddy keeps its state under HOME/XDG: a directory of this run's own.
    caddy = await runProxy(program, ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], `${proxy}/`, {
      HOME: dir,
      XDG_DATA_HOME: dir,
      XDG_CONFIG_HOME: dir,
    });
  });
  after(async () => {
    await caddy?.stop();
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => (stack.upstream.requests.length = 0));

  it("forwards the request with the delegated token, never the caller's", () => forwardsDelegated(stack, proxy));

  it("answers the gateway's 401 at Caddy when the token is missing, forwarding nothing", async () => {
    const answer = await fetch(`${proxy}/orders/1`);
    assert.equal(answer.status, 401);
    assert.equal(answer.headers.get('www-authenticate'), 'Bearer');
    assert.equal(await codeOf(answer), 'GATEWAY_SUBJECT_MISSING');
    assert.equal(stack.upstream.requests.length, 0);
  });

  it("answers the gateway's 502 at Caddy when the token endpoint is down, forwarding nothing", async () => {
    const token = await stack.personToken();
    await stack.takeTokenEndpointDown();
    const answer = await fetch(`${proxy}/orders/2`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(answer.status, 502);
    assert.equal(await codeOf(answer), 'GATEWAY_TOKEN_ENDPOINT_UNREACHABLE');
    assert.equal(stack.upstream.requests.length, 0);
  });
});
