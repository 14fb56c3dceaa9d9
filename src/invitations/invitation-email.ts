import { escapeHtml } from '../email/verification-email.ts';

export interface InvitationEmailInput {
  /** Who invites: the organisation's email_sender_name, else its name. */
  senderName: string;
  url: string;
  expiresAt: number;
  /** The person held credentials: the link replaces them. */
  reset: boolean;
}

function utc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The email that carries an invitation link. The link is in the body only, never the subject
 * (notification previews, mail server logs). A reset says so, so that a person who asked for
 * nothing knows to tell their administrator.
 */
export function invitationEmail(input: InvitationEmailInput): { subject: string; text: string; html: string } {
  const until = utc(input.expiresAt);
  const subject = input.reset ? `Reset your ${input.senderName} sign-in` : `Your ${input.senderName} sign-in`;
  const what = input.reset
    ? `${input.senderName} reset your sign-in. Open this link to choose a new password; your present password and second factors stop working when you do.`
    : `${input.senderName} invites you to sign in. Open this link to choose your password.`;
  const text = [what, '', input.url, '', `The link works once, until ${until}. If you did not expect this email, tell ${input.senderName}.`, ''].join('\n');
  const name = escapeHtml(input.senderName);
  const link = escapeHtml(input.url);
  const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>
<body style="font-family:sans-serif">
<p>${escapeHtml(what)}</p>
<p><a href="${link}">${link}</a></p>
<p>The link works once, until ${until}. If you did not expect this email, tell ${name}.</p>
</body></html>
`;
  return { subject, text, html };
}
