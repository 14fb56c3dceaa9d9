export interface VerificationEmailInput {
  /** Who asks: the organisation's email_sender_name, else its name. */
  senderName: string;
  code: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /** The time the message is written, for "valid for N minutes". */
  now?: number;
}

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The sender name is set by an organisation administrator; it must not become markup. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char]!);
}

/** 2026-11-20 14:03 UTC: one unambiguous form, whatever the reader's time zone. */
function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The email that carries a one-time code. The code is not in the subject, so it does not show
 * in notification previews or in mail server logs that record subjects. The reader is told who
 * asks and why, and not to pass the code to anyone else: the code proves control of the mailbox
 * to the operator who is on the line with them, and to nobody else.
 */
export function verificationEmail(input: VerificationEmailInput): EmailContent {
  const minutes = Math.max(1, Math.round((input.expiresAt - (input.now ?? Date.now())) / 60_000));
  const until = utc(input.expiresAt);
  const subject = `Your ${input.senderName} verification code`;
  const text = [
    `${input.senderName} asked to verify that this email address is yours.`,
    '',
    `Your verification code is: ${input.code}`,
    '',
    `It is valid for ${minutes} minutes (until ${until}). Give it only to the ${input.senderName} operator`,
    'who asked you for it. If you did not expect this email, ignore it.',
    '',
  ].join('\n');
  const name = escapeHtml(input.senderName);
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family:sans-serif">
<p>${name} asked to verify that this email address is yours.</p>
<p>Your verification code is:</p>
<p style="font-size:2em;font-family:monospace;letter-spacing:0.2em"><strong>${escapeHtml(input.code)}</strong></p>
<p>It is valid for ${minutes} minutes (until ${until}). Give it only to the ${name} operator who asked you for it.
If you did not expect this email, ignore it.</p>
</body></html>
`;
  return { subject, text, html };
}
