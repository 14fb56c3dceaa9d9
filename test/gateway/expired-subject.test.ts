import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningGateway } from '../../src/gateway/lifecycle.ts';
import { backends } from '../helpers/backends.ts';
import { startFrozenService, type TestClock } from '../helpers/frozen-service.ts';
import { createPerson, mintPersonToken, registerClient } from '../helpers/oauth.ts';
import { startOAuthClientGateway } from '../helpers/oauth-client-gateway.ts';
import { type RecordingUpstream, startRecordingUpstream } from '../helpers/recording-upstream.ts';
import type { TestService } from '../helpers/service.ts';

// Issue 27 §3: the demo's printed curl carried a person JWT of one hour, and after it the
// gateway's 502 said only that the subject token was refused. The caller is now told it expired.
describe('Gateway: a subject token that has expired', () => {
  const clock: TestClock = { at: Date.now() };
  let t: TestService;
  let upstream: RecordingUpstream;
  let gateway: RunningGateway;
  let expiring: string;
  let unknown: string;

  before(async () => {
    t = await startFrozenService(backends()[0]!, clock);
    upstream = await startRecordingUpstream();
    const org = await t.org();
    const client = await registerClient(t, org, { grant_types: ['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange'] });
    const person = await createPerson(t, org);
    expiring = await mintPersonToken(t, org, person, { expires_in: 60 });
    // A token of another signer: refused too, but not for its age.
    unknown = `${expiring.split('.').slice(0, 2).join('.')}.${Buffer.from('not the signature').toString('base64url')}`;
    gateway = await startOAuthClientGateway(t.url, upstream.url, client);
  });
  after(async () => {
    await gateway.close();
    await Promise.all([t.close(), upstream.close()]);
  });

  it('is 502 GATEWAY_SUBJECT_REFUSED saying it has expired, without the token; another refusal does not say so', async () => {
    clock.at += 120_000; // past exp and the service's 5 s of clock tolerance
    const response = await fetch(`${gateway.url}/orders/42`, { headers: { authorization: `Bearer ${expiring}` } });
    const body = await response.text();
    assert.equal(response.status, 502, 'the status stays what spec §7.1 says');
    assert.deepEqual(JSON.parse(body).errors, [
      {
        httpcode: 502,
        code: 'GATEWAY_SUBJECT_REFUSED',
        message: 'the token exchange failed: the token endpoint refused the subject token, which has expired (invalid_request); get a new one',
      },
    ]);
    for (const part of expiring.split('.')) assert.ok(!body.includes(part), 'no part of the caller token is echoed');
    const refused = await fetch(`${gateway.url}/orders/42`, { headers: { authorization: `Bearer ${unknown}` } });
    assert.equal(refused.status, 502);
    assert.equal(
      ((await refused.json()) as { errors: { message: string }[] }).errors[0]!.message,
      'the token exchange failed: the token endpoint refused the subject token (invalid_request)',
    );
    assert.equal(upstream.requests.length, 0, 'nothing was forwarded');
  });
});
