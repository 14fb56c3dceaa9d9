import { ApiError } from '../../errors/api-error.ts';
import type { Handle, Organization, Person } from '../../store/types.ts';
import { canonicalHandle, handleProblem } from '../../validation/handle.ts';
import type { ConsoleDeps } from '../deps.ts';

/** Where a person lands once signed in, with the reason in the query (shown as a notice). */
export const SIGNED_IN_HOME = '/console/';

/** The email a sign-in names, as a handle in its canonical spelling; 400 naming the field otherwise. */
export function emailHandle(text: string): Handle {
  const handle = canonicalHandle({ type: 'email_address', value: text.trim() });
  const problem = handleProblem(handle);
  if (problem) throw new ApiError('INVALID_FIELD', `email: ${problem}`);
  return handle;
}

/** A person who proved who they are but is not of the console is refused here, whatever the door. */
export async function consolePersonOf(deps: Pick<ConsoleDeps, 'store'>, org: Organization, personId: string): Promise<Person> {
  const person = await deps.store.getPerson(org.id, personId);
  if (!person?.console) throw new ApiError('FORBIDDEN', "console: only members of the organisation's console may sign in here; ask an administrator");
  return person;
}
