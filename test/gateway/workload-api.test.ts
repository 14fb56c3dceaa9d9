import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import { WorkloadApiActor } from '../../src/gateway/plugins/token-exchange/workload-api/workload-api-actor.ts';
import { GatewayError } from '../../src/gateway/request/gateway-error.ts';
import { waitFor } from '../helpers/wait.ts';
import { FakeAgent } from '../helpers/workload-agent.ts';

const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** A JWT-shaped string; nothing in the module verifies the signature. */
const makeSvid = (sub: string, expMs: number, iatMs?: number) =>
  `${b64({ alg: 'ES256', typ: 'JWT' })}.${b64({ sub, exp: Math.floor(expMs / 1000), ...(iatMs === undefined ? {} : { iat: Math.floor(iatMs / 1000) }) })}.c2lnbmF0dXJl`;

const assertUnavailable = async (promise: Promise<unknown>, message?: RegExp) => {
  const error = await promise.then(
    () => assert.fail('expected a 502'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof GatewayError, `not a GatewayError: ${String(error)}`);
  assert.equal(error.status, 502);
  assert.equal(error.code, 'GATEWAY_ACTOR_UNAVAILABLE');
  if (message) assert.match(error.message, message);
  return error;
};

describe('WorkloadApiActor (SPIFFE Workload API FetchJWTSVID)', () => {
  let dir: string;
  const agents: FakeAgent[] = [];
  const actors: WorkloadApiActor[] = [];
  const agentAt = async (name: string) => {
    const agent = new FakeAgent(join(dir, name));
    agents.push(agent);
    await agent.start();
    return agent;
  };
  const actorFor = (path: string, options: { audience?: string[]; now?: () => number } = {}) => {
    const actor = new WorkloadApiActor({ socket: `unix://${path}`, ...options });
    actors.push(actor);
    return actor;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tessera-wl-'));
  });
  after(async () => {
    for (const actor of actors) actor.close();
    for (const agent of agents) agent.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('returns the first SVID as a JWT actor token; the request carries the security header and the audience', async () => {
    const agent = await agentAt('basic.sock');
    const first = makeSvid('spiffe://example.org/gateway', Date.now() + 3_600_000, Date.now());
    agent.respond = () => ({
      svids: [
        { spiffe_id: 'spiffe://example.org/gateway', svid: first, hint: '' },
        { spiffe_id: 'spiffe://example.org/other', svid: makeSvid('spiffe://example.org/other', Date.now() + 3_600_000), hint: '' },
      ],
    });
    const actor = actorFor(agent.path, { audience: ['https://tessera.example'] });
    assert.deepEqual(await actor.actor(), { token: first, type: JWT });
    assert.equal(agent.calls, 1);
    assert.deepEqual(agent.received[0]?.securityHeader, ['true']);
    assert.deepEqual(agent.received[0]?.audience, ['https://tessera.example']);
    assert.equal(agent.received[0]?.spiffeId, '');
  });

  it('serves a second call within validity from the cache, and refetches near expiry (injected clock)', async () => {
    const agent = await agentAt('cache.sock');
    let now = Date.UTC(2030, 0, 1);
    let minted = 0;
    // One-hour SVIDs: refreshed when less than max(30 s, 12 min) remains.
    agent.respond = () => ({
      svids: [{ spiffe_id: 'spiffe://example.org/gw', svid: makeSvid(`spiffe://example.org/gw#${++minted}`, now + 3_600_000, now), hint: '' }],
    });
    const actor = actorFor(agent.path, { now: () => now });
    const one = await actor.actor();
    assert.equal((await actor.actor()).token, one.token);
    assert.equal(agent.calls, 1);
    assert.deepEqual(agent.received[0]?.audience, []);
    now += 47 * 60_000; // 13 min left: still cached
    assert.equal((await actor.actor()).token, one.token);
    assert.equal(agent.calls, 1);
    now += 2 * 60_000; // 11 min left: refresh
    const two = await actor.actor();
    assert.notEqual(two.token, one.token);
    assert.equal(agent.calls, 2);
    assert.equal((await actor.actor()).token, two.token);
    assert.equal(agent.calls, 2);
  });

  it('coalesces concurrent calls into one RPC', async () => {
    const agent = await agentAt('concurrent.sock');
    agent.delayMs = 100;
    const svid = makeSvid('spiffe://example.org/gw', Date.now() + 3_600_000);
    agent.respond = () => ({ svids: [{ spiffe_id: 'spiffe://example.org/gw', svid, hint: '' }] });
    const actor = actorFor(agent.path);
    const results = await Promise.all(Array.from({ length: 8 }, () => actor.actor()));
    assert.equal(agent.calls, 1);
    for (const result of results) assert.equal(result.token, svid);
  });

  it('fails fast with 502 when no agent listens, then backs off without dialing (injected clock)', async () => {
    const path = join(dir, 'nobody-here.sock');
    let now = Date.UTC(2030, 0, 1);
    const actor = actorFor(path, { now: () => now });
    // Unreachable, not the 2 s deadline: the call failed as soon as the dial did.
    const error = await assertUnavailable(actor.actor(), /unreachable/);
    assert.ok(error.cause instanceof Error);
    // An agent comes up, but within the back-off window (100 ms after the first failure) the
    // same answer is given again without dialing it.
    const agent = new FakeAgent(path);
    agents.push(agent);
    await agent.start();
    const svid = makeSvid('spiffe://example.org/gw', now + 3_600_000, now);
    agent.respond = () => ({ svids: [{ spiffe_id: 'spiffe://example.org/gw', svid, hint: '' }] });
    now += 99;
    const second = await assertUnavailable(actor.actor());
    assert.equal(second.message, error.message);
    assert.equal(agent.calls, 0, 'no call within the back-off window');
    now += 1;
    assert.deepEqual(await actor.actor(), { token: svid, type: JWT });
    assert.equal(agent.calls, 1, 'past the back-off window the agent is dialed');
  });

  it('gives up at the 2 s deadline with 502 when the agent does not answer', async () => {
    const agent = await agentAt('slow.sock');
    agent.delayMs = 2_500;
    agent.respond = () => ({ svids: [{ spiffe_id: 'spiffe://example.org/gw', svid: makeSvid('spiffe://example.org/gw', Date.now() + 3_600_000), hint: '' }] });
    const actor = actorFor(agent.path);
    const started = Date.now();
    const error = await assertUnavailable(actor.actor(), /did not answer in time/);
    const took = Date.now() - started;
    assert.equal((error.cause as { code?: number }).code, grpc.status.DEADLINE_EXCEEDED);
    assert.equal(agent.calls, 1);
    // The deadline is pinned from both sides without a bound a slow machine could break: the
    // call cannot give up before its deadline, and the agent was given at most 2 s.
    assert.ok(took >= 1_900, `gave up after ${took} ms`);
    const left = agent.received[0]!.deadlineLeftMs;
    assert.ok(left <= 2_000, `the agent was given ${left} ms`);
    actor.close();
    await assertUnavailable(actor.actor(), /closed/);
  });

  it('answers 502 for an empty svids list and for an unparseable SVID, never echoing the SVID', async () => {
    const agent = await agentAt('empty.sock');
    let now = Date.UTC(2030, 0, 1);
    const actor = actorFor(agent.path, { now: () => now });
    agent.respond = () => ({ svids: [] });
    await assertUnavailable(actor.actor(), /no JWT-SVID/);
    assert.equal(agent.calls, 1);
    // Back-off: 100 ms after the first failure, no call in the meantime.
    await assertUnavailable(actor.actor(), /no JWT-SVID/);
    assert.equal(agent.calls, 1);
    now += 100;
    const garbage = `${b64({ alg: 'none' })}.bm90LWpzb24tc2VjcmV0LXBheWxvYWQ.sig`;
    agent.respond = () => ({ svids: [{ spiffe_id: 'spiffe://example.org/gw', svid: garbage, hint: '' }] });
    const error = await assertUnavailable(actor.actor(), /unparseable/);
    assert.equal(agent.calls, 2);
    assert.ok(!error.message.includes(garbage) && !String((error.cause as Error).message).includes('secret'));
    // Second failure: 200 ms back-off.
    now += 150;
    await assertUnavailable(actor.actor(), /unparseable/);
    assert.equal(agent.calls, 2);
    now += 50;
    const good = makeSvid('spiffe://example.org/gw', now + 3_600_000, now);
    agent.respond = () => ({ svids: [{ spiffe_id: 'spiffe://example.org/gw', svid: good, hint: '' }] });
    assert.equal((await actor.actor()).token, good);
    assert.equal(agent.calls, 3);
  });

  it('keeps serving a still-valid SVID while the agent is down, and recovers once it restarts on the same socket', async () => {
    const agent = await agentAt('restart.sock');
    let now = Date.UTC(2030, 0, 1);
    let minted = 0;
    agent.respond = () => ({
      svids: [{ spiffe_id: 'spiffe://example.org/gw', svid: makeSvid(`spiffe://example.org/gw#${++minted}`, now + 3_600_000, now), hint: '' }],
    });
    const actor = actorFor(agent.path, { now: () => now });
    const first = await actor.actor();
    agent.stop();
    now += 50 * 60_000; // in the refresh window, not expired: the failed refresh serves the cached SVID
    assert.equal((await actor.actor()).token, first.token);
    now += 11 * 60_000; // expired, in the back-off window: fail fast
    await assertUnavailable(actor.actor());
    await agent.start();
    now += 5_000; // past any back-off
    const second = await actor.actor();
    assert.notEqual(second.token, first.token);
    assert.equal(agent.calls, 2);
  });

  it('reconnects by itself after a real restart (real clock, short-lived SVIDs)', async () => {
    const agent = await agentAt('restart-real.sock');
    // 10 s SVIDs are inside the 30 s refresh margin: every call goes to the agent.
    agent.respond = () => ({ svids: [{ spiffe_id: 'spiffe://example.org/gw', svid: makeSvid('spiffe://example.org/gw', Date.now() + 10_000), hint: '' }] });
    const actor = actorFor(agent.path);
    await actor.actor();
    agent.stop();
    await sleep(50);
    await actor.actor().catch(() => undefined); // served from cache or failed: either way the agent is gone
    await agent.start();
    const before = agent.calls;
    // Each call within the back-off window is served the cached SVID without a dial; once the
    // window has passed, a call reaches the restarted agent.
    await waitFor(async () => (await actor.actor()).type === JWT && agent.calls > before, { what: 'a call to reach the restarted agent' });
    assert.equal(agent.calls, before + 1);
  });
});
