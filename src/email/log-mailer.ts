import type { Mailer, MailLog, MailMessage } from './mailer.ts';

export const MASK = '••••••';

export interface LogMailerOptions {
  log: MailLog;
  /** From address of messages that name none (TESSERA_SMTP_FROM, or a placeholder). */
  from: string;
  /**
   * Write the message's secrets (the code) as they are. Only the demo asks for this, so that
   * one verification can be followed end to end on a machine without a mail server.
   */
  revealSecrets?: boolean;
}

function masked(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret) out = out.replaceAll(secret, MASK);
  return out;
}

/**
 * The development transport, used when TESSERA_SMTP_URL is unset: nothing leaves the machine,
 * the message is written to the service log instead, its secrets masked (a log is read by more
 * people, and kept longer, than a mailbox). The HTML body is left out: it says the same.
 */
export function logMailer(options: LogMailerOptions): Mailer {
  return {
    description: options.revealSecrets ? 'the service log (codes shown)' : 'the service log (codes masked)',
    async send(message: MailMessage): Promise<void> {
      const secrets = options.revealSecrets ? [] : (message.secrets ?? []);
      options.log.info(
        {
          email: {
            from: `${message.fromName} <${message.fromAddress ?? options.from}>`,
            to: message.to,
            subject: masked(message.subject, secrets),
            text: masked(message.text, secrets),
          },
        },
        'email not sent (TESSERA_SMTP_URL is unset): logged instead',
      );
    },
    async close() {},
  };
}
