import { recordAuthnAttempt } from '../../authn/audit.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Handle, Organization, Person } from '../../store/types.ts';
import { canonicalHandle, handleProblem } from '../../validation/handle.ts';
import type { ConsoleDeps } from '../deps.ts';

/** Where a person lands once signed in: the start page sends them on by role. */
export const SIGNED_IN_HOME = '/console/';

/** The email a sign-in names, as a handle in its canonical spelling; 400 naming the field otherwise. */
export function emailHandle(text: string): Handle {
  const handle = canonicalHandle({ type: 'email_address', value: text.trim() });
  const problem = handleProblem(handle);
  if (problem) throw new ApiError('INVALID_FIELD', `email: ${problem}`);
  return handle;
}

/**
 * A person who proved who they are but is not of the console is refused here, whatever the door,
 * and the refusal is audited beside the login's own success (the API would have answered that
 * secret with a token, so the 403 tells nothing the API does not).
 */
export async function consolePersonOf(
  deps: Pick<ConsoleDeps, 'store' | 'now' | 'logins'>,
  org: Organization,
  personId: string,
  method: string,
): Promise<Person> {
  const person = await deps.store.getPerson(org.id, personId);
  if (!person?.console) {
    await recordAuthnAttempt(
      deps.store,
      deps.now,
      { orgId: org.id, method, personId, credentialId: null, outcome: 'refused', reason: 'not_console_member' },
      deps.logins.attemptMetrics,
    );
    throw new ApiError('FORBIDDEN', "console: only members of the organisation's console may sign in here; ask an administrator");
  }
  return person;
}
