import type { ServiceConfig } from '../config/service-config.ts';
import { logMailer } from './log-mailer.ts';
import type { Mailer, MailLog } from './mailer.ts';

/** Stands in for TESSERA_SMTP_FROM in the development transport's log lines, where it is optional. */
export const DEVELOPMENT_FROM = 'tessera@localhost.invalid';

/**
 * The transport the configuration asks for: SMTP when TESSERA_SMTP_URL is set, else the
 * development transport, which logs. `revealCodes` is the demo's, for the development transport only.
 */
export async function openMailer(
  config: Pick<ServiceConfig, 'smtpUrl' | 'smtpFrom' | 'smtpTimeoutMs'>,
  log: MailLog,
  options: { revealCodes?: boolean } = {},
): Promise<Mailer> {
  if (config.smtpUrl !== undefined && config.smtpFrom !== undefined) {
    // nodemailer (~40 modules) is imported only when SMTP is configured, for memory at start-up.
    const { smtpMailer } = await import('./smtp-mailer.ts');
    return smtpMailer({ url: config.smtpUrl, from: config.smtpFrom, timeoutMs: config.smtpTimeoutMs, log });
  }
  return logMailer({ log, from: config.smtpFrom ?? DEVELOPMENT_FROM, revealSecrets: options.revealCodes === true });
}
