import { createTransport } from 'nodemailer';
import { inSpan, SpanKind } from '../telemetry/spans.ts';
import { emailNotSent, type Mailer, type MailLog, type MailMessage, type SendFailure } from './mailer.ts';

export interface SmtpOptions {
  /** smtp://[user:password@]host[:port] (STARTTLS when offered) or smtps://… (TLS from the start). */
  url: string;
  /** Envelope sender (MAIL FROM), and the From address when a message names none. */
  from: string;
  /** Bound on one whole send, from connecting to the server's answer to the message. */
  timeoutMs: number;
  log: MailLog;
  /** Certificates to trust besides the system's (tests; production uses NODE_EXTRA_CA_CERTS). */
  ca?: string;
}

interface SmtpEndpoint {
  host: string;
  port: number;
  secure: boolean;
  auth: { user: string; pass: string } | undefined;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Reads TESSERA_SMTP_URL; service-config.ts has already checked its form. */
export function parseSmtpUrl(raw: string): SmtpEndpoint {
  const url = new URL(raw);
  const secure = url.protocol === 'smtps:';
  const user = decodeURIComponent(url.username);
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    // 587 is message submission (RFC 6409), where STARTTLS and authentication are the norm.
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    auth: user ? { user, pass: decodeURIComponent(url.password) } : undefined,
  };
}

/** The URL without its credentials: what logs and start-up messages may show. */
export function describeSmtpUrl(raw: string): string {
  const url = new URL(raw);
  return `${url.protocol}//${url.host}`;
}

/** nodemailer's error codes, by what the caller is told. */
function failureOf(code: string | undefined): SendFailure {
  if (code === 'EABORT' || code === 'ETIMEDOUT') return 'timeout';
  if (code === 'EENVELOPE' || code === 'EMESSAGE' || code === 'EAUTH') return 'refused';
  if (code === 'ECONNECTION' || code === 'ESOCKET' || code === 'EDNS' || code === 'ETLS') return 'unreachable';
  return 'failed';
}

/**
 * Delivery through an SMTP server (nodemailer), one connection per message. STARTTLS is used
 * whenever the server offers it; with credentials over smtp:// it is required, except to a
 * loopback relay, so a password never crosses a network in clear text.
 */
export function smtpMailer(options: SmtpOptions): Mailer {
  const endpoint = parseSmtpUrl(options.url);
  const description = describeSmtpUrl(options.url);
  const transporter = createTransport({
    host: endpoint.host,
    port: endpoint.port,
    secure: endpoint.secure,
    auth: endpoint.auth,
    requireTLS: !endpoint.secure && endpoint.auth !== undefined && !LOOPBACK.has(new URL(options.url).hostname),
    // Each phase is bounded too, so a connection abandoned by the overall timeout is not kept open.
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
    dnsTimeout: options.timeoutMs,
    tls: options.ca === undefined ? undefined : { ca: options.ca },
    // nodemailer's own logging could print the AUTH exchange; we log outcomes ourselves.
    logger: false,
    debug: false,
  });
  return {
    description,
    send: (message: MailMessage): Promise<void> => inSpan('smtp send', { 'server.address': endpoint.host }, () => send(message), SpanKind.CLIENT),
    async close() {
      transporter.close();
    },
  };

  async function send(message: MailMessage): Promise<void> {
    try {
      await transporter.sendMail({
        from: { name: message.fromName, address: message.fromAddress ?? options.from },
        // The bounce address is always ours, whatever From says.
        // One recipient, as an address object: a string would be parsed as a list of them
        // (and display names), so an odd directory value could add recipients.
        envelope: { from: options.from, to: [message.to] },
        to: { name: '', address: message.to },
        subject: message.subject,
        text: message.text,
        html: message.html,
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      const { code, responseCode, command } = error as { code?: string; responseCode?: number; command?: string };
      // Only codes, never the server's text (it may quote the address) nor the AUTH command's argument.
      const detail = [code ?? 'error', responseCode, command?.split(' ')[0]].filter((part) => part !== undefined).join(' ');
      options.log.warn({ smtp: description, reason: detail }, 'sending an email failed');
      throw emailNotSent(failureOf(code), detail);
    }
  }
}
