import type { Organization } from '../store/types.ts';
import type { Mailer } from './mailer.ts';
import { verificationEmail } from './verification-email.ts';

/**
 * The code's email, from the organisation: its email_sender_name (else its name) and its
 * email_sender address (else the transport's TESSERA_SMTP_FROM). The code is marked secret, so
 * the development transport masks it.
 */
export function sendVerificationEmail(mailer: Mailer, org: Organization, mail: { to: string; code: string; expiresAt: number; now: number }): Promise<void> {
  const senderName = org.config.email_sender_name ?? org.name;
  const content = verificationEmail({ senderName, code: mail.code, expiresAt: mail.expiresAt, now: mail.now });
  return mailer.send({ to: mail.to, ...content, fromName: senderName, fromAddress: org.config.email_sender, secrets: [mail.code] });
}
