import { RECENT_SIGN_IN_MS } from '../../authn/assurance.ts';
import type { SignedIn } from '../context.ts';

/** The notice key the page the person returns to shows (each page that asks for a confirmation lists it). */
export const CONFIRMED = 'confirmed';

/** What that notice says. */
export const CONFIRMED_NOTICE = `Confirmed: for the next ${RECENT_SIGN_IN_MS / 60_000} minutes you can make sensitive changes. Do again what you were doing.`;

/** Longer than any console page's path and query. */
const MAX_RETURN_PATH = 512;

/** Where the confirmation page sends the person back to: a console page of ours, nothing else. */
export function safeReturnPath(next: unknown): string {
  if (typeof next !== 'string' || next.length > MAX_RETURN_PATH) return '/console/';
  const [path = ''] = next.split('?');
  // Path characters only: no scheme or host (//evil.example), no backslash, no control characters,
  // and no dot segments, which a browser would resolve out of /console/ (a hostile-input review's find).
  const wellFormed = /^\/console\/[A-Za-z0-9/_.?=&%-]*$/.test(next) && !next.includes('//');
  const dotted = path.split('/').some((segment) => segment === '.' || segment === '..' || /^(\.|%2e)+$/i.test(segment));
  return wellFormed && !dotted ? next : '/console/';
}

/** Thrown to send the person to confirm who they are before a sensitive action; `next` is the page to come back to. */
export class ConfirmationRequired extends Error {
  readonly location: string;
  constructor(next: string) {
    super(`console: confirm it is you first: the last sign-in is older than ${RECENT_SIGN_IN_MS / 60_000} minutes`);
    this.name = 'ConfirmationRequired';
    this.location = `/console/confirm?next=${encodeURIComponent(safeReturnPath(next))}`;
  }
}

/**
 * Design §5: removing a factor, new recovery codes, API keys, role changes and the
 * organisation's WebAuthn settings ask for the password or a passkey again once the last
 * sign-in (or confirmation) is older than ten minutes. `next` is the page the action was on.
 */
export function requireRecentSignIn(now: () => number, who: SignedIn, next: string): void {
  if (now() - who.session.authTime > RECENT_SIGN_IN_MS) throw new ConfirmationRequired(next);
}
