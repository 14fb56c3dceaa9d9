import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store } from '../../src/store/store.ts';
import { type Backend, backends } from '../helpers/backends.ts';
import { exited, runCli, spawnCli, waitForOutput } from '../helpers/cli.ts';
import type { ConsoleAgent, ConsolePage } from '../helpers/console.ts';
import { startFrozenService } from '../helpers/frozen-service.ts';
import type { TestOrg, TestService } from '../helpers/service.ts';
import type { SecurityStack } from './harness.ts';

/** A password the new-password rules take. */
export const CHOSEN = 'violet kettle under the stairs';

export const pathOf = (url: string) => new URL(url).pathname;
export const tokenOf = (url: string) => pathOf(url).split('/').at(-1)!;

/** A console member of `org` with an email handle and nothing else (or `body`'s roles). */
export async function invitee(t: TestService, org: TestOrg, body: Record<string, unknown> = {}): Promise<{ id: string; email: string }> {
  const email = `inv${Math.random().toString(36).slice(2)}@example.com`;
  const created = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: email }], console: true, ...body } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return { id: created.body.result.id, email };
}

/** A new invitation's URL (admin key). */
export async function invite(t: TestService, org: TestOrg, personId: string): Promise<string> {
  const made = await t.call('POST', `/persons/${personId}/invitations`, { as: org, body: {} });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return made.body.result.url;
}

/** Opens the link in `agent` and posts its form with `password` twice; the page and the answer. */
export async function redeem(agent: ConsoleAgent, url: string, password = CHOSEN): Promise<{ page: ConsolePage; answer: ConsolePage }> {
  const page = await agent.get(pathOf(url));
  const answer = await agent.post('/console/invitation', { token: tokenOf(url), password, password_again: password }, page.csrf);
  return { page, answer };
}

/** The one error line of a console page. */
export const errorLine = (page: ConsolePage) => /<div class="error" role="alert"><ul><li>([^<]*)<\/li>/.exec(page.html)?.[1];

/** How many credentials the person holds. */
export async function credentialCount(t: TestService, org: TestOrg, personId: string): Promise<number> {
  return (await t.call('GET', `/persons/${personId}/credentials`, { as: org })).body.result.length;
}

/**
 * A real `tessera service` process at log level info (SQLite file): `run` gets its URL and an
 * admin key, and may read everything the process printed so far.
 */
export async function withLoggingService(run: (url: string, as: Record<string, string>, printed: () => string) => Promise<void>): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'tessera-invitation-rows-'));
  const env = { TESSERA_DEV: '1', TESSERA_PORT: '0', TESSERA_LOG_LEVEL: 'info', TESSERA_DATABASE: `sqlite:${join(directory, 'db.sqlite')}` };
  try {
    const created = await runCli(['admin', 'create-org', '--name', 'logged', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const { org_id, api_key } = JSON.parse(created.stdout) as { org_id: string; api_key: string };
    const child = spawnCli(['service'], env);
    let out = '';
    child.stdout!.on('data', (chunk) => (out += chunk));
    child.stderr!.on('data', (chunk) => (out += chunk));
    try {
      const url = /Server listening at (http:\/\/[^"\s]+)/.exec(await waitForOutput(child, 'Server listening at'))![1]!;
      await run(url, { 'service-orgid': org_id, 'service-api-key': api_key }, () => out);
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** A service of the stack's backend whose next transaction first lets `meanwhile` run (another request landing mid-way). */
export interface InterleavedService {
  t: TestService;
  org: TestOrg;
  /** Runs before the next Store.inTransaction: a redemption's, after its password is hashed. */
  meanwhile(step: () => Promise<void>): void;
}

/** The backend the stack runs on, for a row that needs a service of its own. */
export const backendOf = (s: SecurityStack): Backend => backends().find((candidate) => candidate.name === s.backend)!;

export async function withInterleavedService(s: SecurityStack, run: (service: InterleavedService) => Promise<void>): Promise<void> {
  const backend = backendOf(s);
  let pending: (() => Promise<void>) | undefined;
  const wrapStore = (real: Store): Store =>
    new Proxy(real, {
      get(target, name) {
        if (name !== 'inTransaction') {
          const value = Reflect.get(target, name, target);
          return typeof value === 'function' ? value.bind(target) : value;
        }
        return async (...args: Parameters<Store['inTransaction']>) => {
          const step = pending;
          pending = undefined;
          await step?.();
          return target.inTransaction(...args);
        };
      },
    });
  const t = await startFrozenService(backend, { at: Date.now() }, { wrapStore, loginFailureTimeMs: 100 });
  try {
    await run({ t, org: await t.org(), meanwhile: (step) => (pending = step) });
  } finally {
    await t.close();
  }
}
