import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { logMailer, MASK } from '../../src/email/log-mailer.ts';
import { openMailer } from '../../src/email/open-mailer.ts';
import { verificationEmail } from '../../src/email/verification-email.ts';
import { capturedLog } from '../helpers/mail-log.ts';

const CODE = '318054';

function message() {
  const content = verificationEmail({ senderName: 'Acme Helpdesk', code: CODE, expiresAt: Date.now() + 600_000 });
  return { to: 'ada@example.com', fromName: 'Acme Helpdesk', fromAddress: null, secrets: [CODE], ...content };
}

describe('Development transport', () => {
  it('writes the message to the log with the code masked, never the code itself', async () => {
    const { log, lines, text } = capturedLog();
    await logMailer({ log, from: 'tessera@localhost.invalid' }).send(message());
    assert.equal(lines().length, 1);
    const line = JSON.parse(lines()[0]!);
    assert.equal(line.level, 30, 'info');
    assert.equal(line.email.to, 'ada@example.com');
    assert.equal(line.email.from, 'Acme Helpdesk <tessera@localhost.invalid>');
    assert.match(line.email.text, new RegExp(`verification code is: ${MASK}`));
    assert.ok(!text().includes(CODE), text());
  });

  it('shows the code only when asked to (the demo)', async () => {
    const { log, text } = capturedLog();
    await logMailer({ log, from: 'tessera@localhost.invalid', revealSecrets: true }).send(message());
    assert.ok(text().includes(`verification code is: ${CODE}`));
  });

  it('is what the service uses without TESSERA_SMTP_URL, masked unless the demo asks', async () => {
    const { log, text } = capturedLog();
    const mailer = await openMailer({ smtpUrl: undefined, smtpFrom: undefined, smtpTimeoutMs: 10_000 }, log);
    assert.equal(mailer.description, 'the service log (codes masked)');
    await mailer.send(message());
    assert.ok(!text().includes(CODE));
    assert.equal(
      (await openMailer({ smtpUrl: undefined, smtpFrom: undefined, smtpTimeoutMs: 1 }, log, { revealCodes: true })).description,
      'the service log (codes shown)',
    );
    assert.equal(
      (await openMailer({ smtpUrl: 'smtp://u:secret@mail.example.org:2525', smtpFrom: 'x@example.org', smtpTimeoutMs: 1 }, log)).description,
      'smtp://mail.example.org:2525',
    );
  });
});
