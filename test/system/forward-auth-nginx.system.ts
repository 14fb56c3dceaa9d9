import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { docConfiguration } from './forward-auth-doc.ts';
import { type ForwardAuthStack, forwardsDelegated, freePort, requireProgram, runProxy, startForwardAuthStack } from './forward-auth-stack.ts';

describe("nginx auth_request in front of the gateway's forward-auth port, configured as docs/forward-auth.md shows", () => {
  let stack: ForwardAuthStack;
  let nginx: { stop(): Promise<void> };
  let proxy: string;
  const dir = mkdtempSync(join(tmpdir(), 'fa-nginx-'));

  before(async () => {
    const program = requireProgram('nginx', 'nginx');
    stack = await startForwardAuthStack();
    const port = await freePort();
    const server = docConfiguration('nginx', { proxy: port, forwardAuth: stack.forwardAuthPort, upstream: stack.upstream.port });
    // The doc's block is what a reader puts in `http { }`; around it, what a private nginx needs.
    const temp = (name: string) => `${name}_temp_path ${join(dir, name)};`;
    const conf = `daemon off;
master_process off;
pid ${join(dir, 'nginx.pid')};
error_log stderr warn;
events {}
http {
    access_log off;
    ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n    ')}
${server}
}
`;
    writeFileSync(join(dir, 'nginx.conf'), conf);
    proxy = `http://127.0.0.1:${port}`;
    nginx = await runProxy(program, ['-p', dir, '-c', join(dir, 'nginx.conf')], `${proxy}/`);
  });
  after(async () => {
    await nginx?.stop();
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => (stack.upstream.requests.length = 0));

  it("forwards the request with the delegated token, never the caller's", () => forwardsDelegated(stack, proxy));

  it("passes the caller's Authorization as sent on a path no rule runs the plugin for, as the proxy port does", async () => {
    const answer = await fetch(`${proxy}/public/page`, { headers: { authorization: 'Bearer for-the-public-page' } });
    assert.equal(answer.status, 200);
    assert.equal(stack.upstream.requests[0]!.headers.authorization, 'Bearer for-the-public-page');
  });

  it('answers 401 at nginx when the token is missing, forwarding nothing', async () => {
    const answer = await fetch(`${proxy}/orders/1`);
    assert.equal(answer.status, 401);
    assert.equal(answer.headers.get('www-authenticate'), 'Bearer');
    assert.equal(stack.upstream.requests.length, 0);
  });

  it('answers a 5xx at nginx when the token endpoint is down, forwarding nothing', async () => {
    const token = await stack.personToken();
    await stack.takeTokenEndpointDown();
    const answer = await fetch(`${proxy}/orders/2`, { headers: { authorization: `Bearer ${token}` } });
    assert.ok(answer.status >= 500, `status ${answer.status}`);
    assert.equal(stack.upstream.requests.length, 0);
  });
});
