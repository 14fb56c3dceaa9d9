import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { MailMessage } from '../../src/email/mailer.ts';
import { describeSmtpUrl, parseSmtpUrl, smtpMailer } from '../../src/email/smtp-mailer.ts';
import { verificationEmail } from '../../src/email/verification-email.ts';
import { ApiError } from '../../src/errors/api-error.ts';
import { capturedLog } from '../helpers/mail-log.ts';
import { codeFrom, startBrokenListener, startSmtpListener } from '../helpers/smtp.ts';

const FROM = 'tessera@example.org';

function message(overrides: Partial<MailMessage> = {}): MailMessage {
  const content = verificationEmail({ senderName: 'Example & Co <Helpdesk>', code: '042917', expiresAt: Date.now() + 600_000 });
  return { to: 'ada@example.com', fromName: 'Example & Co <Helpdesk>', fromAddress: 'helpdesk@example.com', secrets: ['042917'], ...content, ...overrides };
}

/**
 * The send's failure: an EMAIL_NOT_SENT ApiError, and how long it took from the call. The send
 * is started here, after the clock: timed from after the call, the synchronous part of a send
 * (under load, tens of milliseconds) went uncounted, and a 300 ms timeout measured 224 ms in CI.
 */
async function failure(send: () => Promise<void>): Promise<{ error: ApiError; ms: number }> {
  const start = performance.now();
  const error = await send().then(
    () => assert.fail('the send succeeded'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ApiError, String(error));
  assert.equal(error.code, 'EMAIL_NOT_SENT');
  assert.equal(error.status, 502);
  return { error, ms: performance.now() - start };
}

describe('SMTP URL', () => {
  it('reads host, port, TLS mode and percent-encoded credentials, and describes itself without them', () => {
    assert.deepEqual(parseSmtpUrl('smtp://mailer%40example.org:p%3Ass%40w0rd@mail.example.org:2525'), {
      host: 'mail.example.org',
      port: 2525,
      secure: false,
      auth: { user: 'mailer@example.org', pass: 'p:ss@w0rd' },
    });
    assert.deepEqual(parseSmtpUrl('smtps://mail.example.org'), { host: 'mail.example.org', port: 465, secure: true, auth: undefined });
    assert.equal(parseSmtpUrl('smtp://[::1]').host, '::1');
    assert.equal(parseSmtpUrl('smtp://relay').port, 587);
    assert.equal(describeSmtpUrl('smtp://u:secret@mail.example.org:2525'), 'smtp://mail.example.org:2525');
  });
});

describe('SMTP transport', () => {
  it('delivers both bodies, with the From name, to a plain loopback server', async () => {
    const listener = await startSmtpListener();
    const mailer = smtpMailer({ url: listener.url, from: FROM, timeoutMs: 5_000, log: capturedLog().log });
    try {
      await mailer.send(message());
      const mail = await listener.nextMessage();
      assert.equal(mail.mailFrom, FROM, 'the bounce address is ours');
      assert.deepEqual(mail.rcptTo, ['ada@example.com']);
      assert.equal(mail.secure, false);
      assert.equal(mail.headers.get('from'), '"Example & Co <Helpdesk>" <helpdesk@example.com>');
      assert.equal(mail.headers.get('subject'), 'Your Example & Co <Helpdesk> verification code');
      assert.match(mail.headers.get('content-type') ?? '', /^multipart\/alternative/);
      assert.equal(codeFrom(mail), '042917');
      assert.match(mail.html, /<strong>042917<\/strong>/);
      assert.match(mail.html, /Example &amp; Co &lt;Helpdesk&gt; asked/, 'the sender name is escaped in HTML');
      assert.ok(!mail.html.includes('<Helpdesk>'));
    } finally {
      await mailer.close();
      await listener.close();
    }
  });

  it('uses TESSERA_SMTP_FROM as From when the message names no address', async () => {
    const listener = await startSmtpListener();
    const mailer = smtpMailer({ url: listener.url, from: FROM, timeoutMs: 5_000, log: capturedLog().log });
    try {
      await mailer.send(message({ fromName: 'Acme', fromAddress: null }));
      assert.equal((await listener.nextMessage()).headers.get('from'), `Acme <${FROM}>`);
    } finally {
      await mailer.close();
      await listener.close();
    }
  });

  it('logs in with the credentials of the URL, and a refused login is a 502 that never logs the password', async () => {
    const listener = await startSmtpListener({ auth: { user: 'mailer@example.org', pass: 'p:ss@w0rd' } });
    const { log, text } = capturedLog();
    const good = smtpMailer({ url: listener.url, from: FROM, timeoutMs: 5_000, log });
    const badUrl = listener.url.replace(encodeURIComponent('p:ss@w0rd'), 'hunter2-wrong');
    const bad = smtpMailer({ url: badUrl, from: FROM, timeoutMs: 5_000, log });
    try {
      await good.send(message());
      assert.equal((await listener.nextMessage()).user, 'mailer@example.org');
      const { error } = await failure(() => bad.send(message()));
      assert.match(error.message, /refused the message/);
      assert.match(String((error.cause as Error).message), /EAUTH 535/);
      assert.ok(!text().includes('hunter2') && !text().includes('w0rd'), text());
      assert.ok(!JSON.stringify(error).includes('hunter2') && !error.message.includes('hunter2'));
    } finally {
      await good.close();
      await bad.close();
      await listener.close();
    }
  });

  it('answers a refused recipient with EMAIL_NOT_SENT, logged without the address', async () => {
    const listener = await startSmtpListener({ refuseRecipients: true });
    const { log, lines } = capturedLog();
    const mailer = smtpMailer({ url: listener.url, from: FROM, timeoutMs: 5_000, log });
    try {
      const { error } = await failure(() => mailer.send(message()));
      assert.match(error.message, /^email: the mail server refused the message/);
      assert.equal(listener.messages.length, 0);
      const line = JSON.parse(lines().at(-1)!);
      assert.equal(line.msg, 'sending an email failed');
      assert.match(line.reason, /^EENVELOPE 550/);
      assert.ok(!lines().join('').includes('ada@example.com'));
    } finally {
      await mailer.close();
      await listener.close();
    }
  });

  it('answers a server that closes the connection with EMAIL_NOT_SENT, at once', async () => {
    const broken = await startBrokenListener('closes');
    const mailer = smtpMailer({ url: broken.url, from: FROM, timeoutMs: 5_000, log: capturedLog().log });
    try {
      const { error, ms } = await failure(() => mailer.send(message()));
      assert.ok(ms < 2_000, `took ${ms} ms`);
      assert.match(error.message, /could not be reached|failed while taking/);
    } finally {
      await mailer.close();
      await broken.close();
    }
  });

  it('gives up on a server that never answers within the timeout', async () => {
    const silent = await startBrokenListener('silent');
    const mailer = smtpMailer({ url: silent.url, from: FROM, timeoutMs: 300, log: capturedLog().log });
    try {
      const { error, ms } = await failure(() => mailer.send(message()));
      assert.ok(ms >= 250 && ms < 2_000, `took ${ms} ms`);
      assert.match(error.message, /did not answer in time/);
    } finally {
      await mailer.close();
      await silent.close();
    }
  });

  it('answers a port where nothing listens with EMAIL_NOT_SENT', async () => {
    const broken = await startBrokenListener('silent');
    const url = broken.url;
    await broken.close();
    const mailer = smtpMailer({ url, from: FROM, timeoutMs: 2_000, log: capturedLog().log });
    const { error } = await failure(() => mailer.send(message()));
    assert.match(error.message, /could not be reached/);
    await mailer.close();
  });

  describe('with STARTTLS offered', () => {
    // A checked-in key and self-signed certificate for 127.0.0.1, valid for a hundred years, so
    // that this test needs no openssl (or other program) on the machine. The key guards nothing
    // but this test's listener. Made with:
    //   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 \
    //     -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout smtp-tls-key.pem -out smtp-tls-cert.pem
    const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
    const tls = { key: readFileSync(join(fixtures, 'smtp-tls-key.pem'), 'utf8'), cert: readFileSync(join(fixtures, 'smtp-tls-cert.pem'), 'utf8') };

    it('upgrades the connection before sending', async () => {
      const listener = await startSmtpListener({ tls });
      const mailer = smtpMailer({ url: listener.url, from: FROM, timeoutMs: 5_000, log: capturedLog().log, ca: tls.cert });
      try {
        await mailer.send(message());
        assert.equal((await listener.nextMessage()).secure, true);
      } finally {
        await mailer.close();
        await listener.close();
      }
    });

    it('refuses a certificate it does not trust, and sends nothing', async () => {
      const listener = await startSmtpListener({ tls });
      const mailer = smtpMailer({ url: listener.url, from: FROM, timeoutMs: 5_000, log: capturedLog().log });
      try {
        await failure(() => mailer.send(message()));
        assert.equal(listener.messages.length, 0);
      } finally {
        await mailer.close();
        await listener.close();
      }
    });
  });
});
