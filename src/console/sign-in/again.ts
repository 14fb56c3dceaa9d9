import { ApiError } from '../../errors/api-error.ts';
import type { Organization } from '../../store/types.ts';

/** The sign-in page for the organisation of the session just ended, so signing in again needs no typing of it. */
export function signInAgain(notice: string, org: Pick<Organization, 'name'> | undefined): string {
  return `/console/sign-in?notice=${notice}${org ? `&org=${encodeURIComponent(org.name)}` : ''}`;
}

/** The ticket of the pending sign-in can no longer be completed (expired, five tries, or spent): only a new sign-in goes on. */
export function isTicketEnded(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'SECOND_FACTOR_TICKET_INVALID';
}
