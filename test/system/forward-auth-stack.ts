import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { pino } from 'pino';
import { buildPlugins } from '../../src/gateway/build-plugins.ts';
import { readGatewayConfig } from '../../src/gateway/config/gateway-config.ts';
import { type RunningGateway, startGateway } from '../../src/gateway/lifecycle.ts';
import { fileKey } from '../../src/gateway/settings/config-error.ts';
import { backends } from '../helpers/backends.ts';
import { claims, createPerson, mintPersonToken, registerClient } from '../helpers/oauth.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';

/**
 * What the forward-auth system tests run a real proxy against: the service, a token endpoint
 * the test can take down (a recorder forwarding to the service), the gateway with its
 * forward-auth port, and a recording upstream standing for the user's application.
 */
export interface ForwardAuthStack {
  service: TestService;
  org: TestOrg;
  person: string;
  /** A fresh person token: each test uses its own, so a cached delegated token never answers for it. */
  personToken(): Promise<string>;
  upstream: RecordingUpstream;
  gateway: RunningGateway;
  forwardAuthPort: number;
  /** Closes the token endpoint's port: the next exchange cannot reach it. */
  takeTokenEndpointDown(): Promise<void>;
  close(): Promise<void>;
}

export async function startForwardAuthStack(): Promise<ForwardAuthStack> {
  const service = await startTestService(backends()[0]!);
  const org = await service.org();
  const client = await registerClient(service, org);
  const person = await createPerson(service, org);
  const tokenEndpoint = await startRecordingUpstream({ forwardTo: service.url });
  const upstream = await startRecordingUpstream();
  const parameters = {
    service_base_url: tokenEndpoint.url,
    subject_header_with_token: 'Authorization',
    actor_mode: 'oauth_client',
    oauth_client_id: client.id,
    oauth_client_secret: client.secret,
    requested_token_type: 'urn:ietf:params:oauth:token-type:jwt',
  };
  const config = readGatewayConfig(
    {
      port: 0,
      admin_port: 0,
      forward_auth: { port: 0 },
      urls: [{ pattern: '*/orders/*', target: upstream.url, plugins: { orders: { enabled: true } } }],
      default_target: upstream.url,
      plugins: [{ type: 'token-exchange', id: 'orders', enabled: false, parameters }],
    },
    fileKey,
  );
  const gateway = await startGateway(config, await buildPlugins(config), pino({ level: 'silent' }));
  let down = false;
  return {
    service,
    org,
    person,
    personToken: () => mintPersonToken(service, org, person, { scope: 'orders:read' }),
    upstream,
    gateway,
    forwardAuthPort: Number(new URL(gateway.forwardAuthUrl!).port),
    async takeTokenEndpointDown() {
      down = true;
      await tokenEndpoint.close();
    },
    async close() {
      await gateway.close();
      await Promise.all([upstream.close(), down ? undefined : tokenEndpoint.close(), service.close()]);
    },
  };
}

/** The program's path, or a failure naming it and how to install it: a system test never skips. */
export function requireProgram(name: string, debianPackage: string): string {
  const found = [`/usr/sbin/${name}`, `/usr/bin/${name}`, `/usr/local/bin/${name}`].find((path) => existsSync(path));
  const onPath = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  const path = onPath || found;
  assert.ok(path, `${name} is not installed: this system test runs the real ${name}; install it with \`apt-get install -y ${debianPackage}\` (.ci/run does)`);
  return path;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs a proxy until `stop`; resolves once `url` answers anything, or fails with its output. */
export async function runProxy(command: string, args: string[], url: string, env: Record<string, string> = {}): Promise<{ stop(): Promise<void> }> {
  const child: ChildProcess = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const answers = async () => {
    if (child.exitCode !== null) throw new Error(`${command} exited (${child.exitCode}):\n${output}`);
    return fetch(url).then(
      () => true,
      () => false,
    );
  };
  await waitFor(answers, { what: `${command} to listen`, timeoutMs: 15_000 }).catch((error: Error) => {
    child.kill('SIGKILL');
    throw new Error(`${error.message}\n${output}`);
  });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Through `proxy`, a call with a person's token reaches the upstream as sent, with the delegated token in its place and the gateway's request id. */
export async function forwardsDelegated(stack: ForwardAuthStack, proxy: string): Promise<void> {
  const token = await stack.personToken();
  const answer = await fetch(`${proxy}/orders/1?expand=lines`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(answer.status, 200, await answer.text());
  assert.equal(stack.upstream.requests.length, 1);
  const [forwarded] = stack.upstream.requests;
  assert.equal(forwarded!.url, '/orders/1?expand=lines');
  const delegated = String(forwarded!.headers.authorization).replace(/^Bearer /, '');
  assert.equal(claims(delegated).sub, stack.person);
  assert.ok(!forwarded!.rawHeaders.join('\n').includes(token), "the caller's token reached the upstream");
  assert.ok(forwarded!.headers['x-request-id'], "the gateway's request id");
}
