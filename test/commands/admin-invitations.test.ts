import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { lifetimeSeconds } from '../../src/commands/admin/invitations.ts';
import { type AdminCli, CLI_OPERATOR, startAdminCli } from '../helpers/admin-cli.ts';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent } from '../helpers/console.ts';
import { type SmtpListener, startSmtpListener } from '../helpers/smtp.ts';

describe('--expires-in', () => {
  it('takes seconds or a unit, within 5 minutes and 7 days, and names the option and the rule otherwise', () => {
    assert.deepEqual(['300', '30m', '72h', '7d', undefined].map(lifetimeSeconds), [300, 1800, 259_200, 604_800, 259_200]);
    for (const bad of ['299', '4m', '8d', '169h', '0', '1.5h', '72 h', 'h', '-5m', '']) {
      assert.throws(() => lifetimeSeconds(bad), /^Error: --expires-in: must be a duration from 5m to 7d/, bad);
    }
  });
});

for (const backend of backends()) {
  describe(`tessera admin invite-person, on ${backend.name}`, () => {
    let cli: AdminCli;
    let smtp: SmtpListener;
    before(async () => {
      cli = await startAdminCli(backend);
      smtp = await startSmtpListener();
    });
    after(async () => {
      await cli.close();
      await smtp.close();
    });

    it('onboards a verifier from the CLI alone: create-person, invite-person, and the printed link sets the password', async () => {
      const created = await cli.admin(['create-person', '--org', 'Acme', '--email', 'vera@example.com', '--role', 'verifier', '--console', '--json']);
      assert.equal(created.code, 0, created.stderr);
      const invited = await cli.admin(['invite-person', '--org', 'Acme', '--person', 'vera@example.com', '--expires-in', '24h'], { TESSERA_ISSUER: cli.t.url });
      assert.equal(invited.code, 0, invited.stderr);
      assert.match(
        invited.stdout,
        /^Invitation link for per_\w+ \(vera@example\.com\)\n {2}link: +http:\/\/127\.0\.0\.1:\d+\/console\/invitation\/[A-Za-z0-9_-]{43}\n/,
      );
      assert.match(invited.stdout, /emailed: +no\n/);
      assert.match(invited.stdout, /The link is shown only now\./);
      const url = /link: +(\S+)/.exec(invited.stdout)![1]!;
      const agent = new ConsoleAgent(cli.t.url);
      const page = await agent.get(new URL(url).pathname);
      assert.equal(page.status, 200);
      const token = new URL(url).pathname.split('/').at(-1)!;
      const password = 'nine red boats in the bay';
      const answer = await agent.post('/console/invitation', { token, password, password_again: password }, page.csrf);
      assert.deepEqual([answer.status, (await agent.follow(answer)).location], [303, '/console/enrol']);
      const [event] = (await cli.events('person.invited')).map((e) => e.data);
      assert.deepEqual(
        { operator: event?.operator, os_user: event?.os_user, reset: event?.reset, emailed: event?.emailed },
        { ...CLI_OPERATOR, reset: false, emailed: false },
      );
    });

    it('--json prints what the API answers; a person who holds credentials gets a reset, said so', async () => {
      const again = await cli.admin(['invite-person', '--org', 'Acme', '--person', 'vera@example.com', '--json']);
      assert.equal(again.code, 0, again.stderr);
      const made = JSON.parse(again.stdout);
      assert.deepEqual(Object.keys(made), ['url', 'expires_at', 'reset', 'emailed_to']);
      assert.deepEqual([made.reset, made.emailed_to], [true, null]);
      const text = await cli.admin(['invite-person', '--org', 'Acme', '--person', 'vera@example.com']);
      assert.match(text.stdout, /^Sign-in reset link for/);
      assert.match(text.stdout, /This is a reset: when they use the link, their present password and second factors stop working\./);
      assert.match(text.stdout, /TESSERA_ISSUER is unset: the link is on http:\/\/127\.0\.0\.1:8080; set it to the service's public URL\./);
      assert.equal((await new ConsoleAgent(cli.t.url).get(new URL(made.url).pathname)).status, 404, 'revoked by the next one');
    });

    it('--send emails it through TESSERA_SMTP_URL, and refuses without one rather than write the link to a log', async () => {
      const refused = await cli.admin(['invite-person', '--org', 'Acme', '--person', 'vera@example.com', '--send']);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /--send: TESSERA_SMTP_URL is not set, so the link would only be written to a log/);
      const sent = await cli.admin(['invite-person', '--org', 'Acme', '--person', 'vera@example.com', '--send', '--json'], {
        TESSERA_SMTP_URL: smtp.url,
        TESSERA_SMTP_FROM: 'tessera@example.com',
      });
      assert.equal(sent.code, 0, sent.stderr);
      const made = JSON.parse(sent.stdout);
      assert.equal(made.emailed_to, 'vera@example.com');
      const mail = await smtp.nextMessage();
      assert.ok(mail.text.includes(made.url));
    });

    it('names the option and the rule on bad input (exit 2), and an unknown person (exit 1)', async () => {
      const cases: [string[], number, RegExp][] = [
        [['--person', 'vera@example.com', '--expires-in', '9d'], 2, /--expires-in: must be a duration from 5m to 7d/],
        [['--person', 'nobody@example.com'], 1, /--person: no person of this organisation has the id or handle "nobody@example\.com"/],
        [['--person', 'vera@example.com', '--expires'], 2, /did you mean --expires-in\?/],
        [[], 2, /--person: is required/],
      ];
      for (const [args, code, message] of cases) {
        const result = await cli.admin(['invite-person', '--org', 'Acme', ...args]);
        assert.equal(result.code, code, `${args.join(' ')}: ${result.stderr}`);
        assert.match(result.stderr, message);
      }
    });
  });
}
