/**
 * The console page an invitation link opens. The token is a path segment so that the link
 * survives mail clients that mangle query strings; the service's log redacts it (service/app.ts
 * serialises request URLs through redactInvitationToken) and the page sends no Referer.
 */
export const INVITATION_PATH = '/console/invitation';

/** 256 random bits, base64url: what randomSecret makes. Anything else opens no invitation. */
export const INVITATION_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function invitationUrl(issuer: string, token: string): string {
  return `${issuer}${INVITATION_PATH}/${token}`;
}

/** %XX sequences as the characters they stand for, leniently (a stray % stays); repeated, for %2569. */
function percentDecoded(url: string): string {
  let text = url;
  for (let round = 0; round < 3; round++) {
    const next = text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    if (next === text) break;
    text = next;
  }
  return text;
}

/**
 * A request URL as logs may show it: an invitation's token replaced. Not only the exact path the
 * link has: the router opens the page for an absolute-form target (GET http://host/console/…,
 * as a forward proxy sends it) and a percent-encoded path (/console/%69nvitation/…), and a
 * mistyped one (//console/…, another case, a dot segment) still carries a working token; each
 * was logged as it came. So any URL that, decoded, has "invitation" followed by anything other
 * than a letter is redacted whole ("/console/invitation", the form's own address, and
 * "/persons/…/invitations" are not).
 */
export function redactInvitationToken(url: string): string {
  return /invitation[^a-z]/.test(percentDecoded(url).toLowerCase()) ? `${INVITATION_PATH}/[redacted]` : url;
}
