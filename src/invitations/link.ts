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

/** A request URL as logs may show it: an invitation's token replaced. */
export function redactInvitationToken(url: string): string {
  return url.startsWith(`${INVITATION_PATH}/`) ? `${INVITATION_PATH}/[redacted]` : url;
}
