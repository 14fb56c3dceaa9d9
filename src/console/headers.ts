import type { FastifyReply } from 'fastify';

/**
 * No inline script or style anywhere: scripts and styles come from /console/assets only, so
 * markup an attacker managed to get into a page could not run. Forms post only to the console's
 * own origin, and no other site may frame it (clickjacking).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Every console answer: pages are never cached (they show the person's data), assets may be. */
export function consoleHeaders(reply: FastifyReply): void {
  reply.headers({
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'cache-control': 'no-store',
  });
}
