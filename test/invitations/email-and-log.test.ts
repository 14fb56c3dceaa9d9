import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { exited, runCli, spawnCli, waitForOutput } from '../helpers/cli.ts';
import { callService, errorCodes, startTestService, type TestOrg, type TestService } from '../helpers/service.ts';
import { type SmtpListener, startSmtpListener } from '../helpers/smtp.ts';

async function personWithEmail(t: TestService, org: TestOrg): Promise<{ id: string; email: string }> {
  const email = `m${Math.random().toString(36).slice(2)}@example.com`;
  const created = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: email }] } });
  return { id: created.body.result.id, email };
}

for (const backend of backends()) {
  describe(`Invitations by email, on ${backend.name}`, () => {
    let smtp: SmtpListener;
    let refusing: SmtpListener;
    let t: TestService;
    let refused: TestService;
    let org: TestOrg;

    before(async () => {
      smtp = await startSmtpListener();
      refusing = await startSmtpListener({ refuseRecipients: true });
      t = await startTestService(backend, { TESSERA_SMTP_URL: smtp.url, TESSERA_SMTP_FROM: 'tessera@example.com' });
      refused = await startTestService(backend, { TESSERA_SMTP_URL: refusing.url, TESSERA_SMTP_FROM: 'tessera@example.com' });
      org = await t.org();
    });
    after(async () => {
      await t.close();
      await refused.close();
      await smtp.close();
      await refusing.close();
    });

    it('send: true emails the link to the person, from the organisation, the link in the body only', async () => {
      const person = await personWithEmail(t, org);
      const made = await t.call('POST', `/persons/${person.id}/invitations`, { as: org, body: { send: true } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal(made.body.result.emailed_to, person.email);
      const mail = await smtp.nextMessage();
      assert.deepEqual(mail.rcptTo, [person.email]);
      assert.match(mail.headers.get('subject') ?? '', /^Your .+ sign-in$/);
      assert.ok(mail.text.includes(made.body.result.url), mail.text);
      assert.ok(mail.html.includes(`href="${made.body.result.url}"`), mail.html);
      assert.match(mail.text, /The link works once, until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    });

    it('a reset says so in its subject and text', async () => {
      const person = await personWithEmail(t, org);
      await t.call('POST', `/persons/${person.id}/invitations`, { as: org, body: {} });
      await t.call('POST', `/persons/${person.id}/credentials`, {
        as: org,
        body: { type: 'password', params: { password_hash: '$2b$04$abcdefghijklmnopqrstuu5PE6Z0cu0ao3fq8E7HFVR8RMtgtFwM6' } },
      });
      const made = await t.call('POST', `/persons/${person.id}/invitations`, { as: org, body: { send: true } });
      assert.equal(made.body.result.reset, true);
      const mail = await smtp.nextMessage();
      assert.match(mail.headers.get('subject') ?? '', /^Reset your .+ sign-in$/);
      assert.match(mail.text, /your present password and second factors stop working when you do/);
    });

    it('a mail server that refuses the message: 502 EMAIL_NOT_SENT, the link revoked again and that recorded; nothing left working', async () => {
      const refusedOrg = await refused.org();
      const person = await personWithEmail(refused, refusedOrg);
      const made = await refused.call('POST', `/persons/${person.id}/invitations`, { as: refusedOrg, body: { send: true } });
      assert.deepEqual([made.status, errorCodes(made.body)], [502, ['EMAIL_NOT_SENT']]);
      assert.equal(await refused.service.store.getInvitationOfPerson(refusedOrg.orgId, person.id, Date.now()), undefined);
      const events = await refused.call('GET', '/audit/events?type=person.invitation_revoked', { as: refusedOrg });
      assert.deepEqual(
        events.body.result.map((e: { data: { person_id: string; reason: string } }) => [e.data.person_id, e.data.reason]),
        [[person.id, 'email_not_sent']],
      );
    });
  });
}

describe('The service log never holds an invitation link', () => {
  const directory = mkdtempSync(join(tmpdir(), 'tessera-invitation-log-'));
  const env = { TESSERA_DEV: '1', TESSERA_PORT: '0', TESSERA_LOG_LEVEL: 'info', TESSERA_DATABASE: `sqlite:${join(directory, 'db.sqlite')}` };
  after(() => rmSync(directory, { recursive: true, force: true }));

  it('redacts the token in request lines and masks it in the development transport’s email', async () => {
    const created = await runCli(['admin', 'create-org', '--name', 'logged', '--json'], env);
    assert.equal(created.code, 0, created.stderr);
    const { org_id, api_key } = JSON.parse(created.stdout) as { org_id: string; api_key: string };
    const as = { 'service-orgid': org_id, 'service-api-key': api_key };
    const child = spawnCli(['service'], env);
    let out = '';
    child.stdout!.on('data', (chunk) => (out += chunk));
    child.stderr!.on('data', (chunk) => (out += chunk));
    const started = await waitForOutput(child, 'Server listening at');
    const url = /Server listening at (http:\/\/[^"\s]+)/.exec(started)![1]!;
    try {
      const person = await callService(url, 'POST', '/persons', { as, body: { handles: [{ type: 'email_address', value: 'ada@example.com' }] } });
      const made = await callService(url, 'POST', `/persons/${person.body.result.id}/invitations`, { as, body: { send: true } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const link = new URL(made.body.result.url);
      const token = link.pathname.split('/').at(-1)!;
      assert.equal((await fetch(new URL(link.pathname, url))).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.ok(out.includes('/console/invitation/[redacted]'), 'the request was logged, redacted');
      assert.ok(out.includes('email not sent (TESSERA_SMTP_URL is unset)'), 'the email was logged');
      assert.ok(!out.includes(token), 'the token is in no log line');
    } finally {
      child.kill('SIGTERM');
      await exited(child);
    }
  });
});
