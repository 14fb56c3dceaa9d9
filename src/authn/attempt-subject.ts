import type { AttemptCounter } from '../store/authn/store.ts';
import type { Handle, Person } from '../store/types.ts';

/** The credential types attempts are counted for, each on its own counters. */
export const COUNTED_CREDENTIAL_TYPES = ['password', 'totp', 'public-key'] as const;

const PUBLIC_KEY = 'public-key';

/** What an attempt was made with: whom the handle names (null: nobody) and which credential type it tried. */
export interface AttemptTarget {
  orgId: string;
  handle: Handle;
  personId: string | null;
  credentialType: string;
}

/**
 * The counter an attempt is counted on: one per handle and credential type, named by a keyed
 * hash (the credentials' hashCode) so the table holds no handle in the clear.
 *
 * Why not one per person, as NIST SP 800-63B's "per subscriber account" reads: a per-person
 * count answers 429 on a second handle of a person whose first handle was guessed at, which
 * tells an attacker the two handles are one person; and guesses at a method the person has
 * not got (or an unknown handle) would lock every method. Keyed by the handle, known and
 * unknown handles are counted alike by construction. The price: a person with k handles
 * allows k × 100 guesses per credential type; handles are few (an email, a phone number).
 */
export function attemptCounter({ orgId, handle, personId, credentialType }: AttemptTarget, hashCode: (code: string) => string): AttemptCounter {
  // Callers pass the canonical handle (validation/handle.ts), so every spelling counts as one.
  return { orgId, subject: `att_${hashCode(`${credentialType}:${handle.type}:${handle.value}`)}`, personId, credentialType };
}

/**
 * The counter of a discoverable (usernameless) passkey login: one per user handle, that is per
 * the id its userHandle names (src/methods/passkey/user-handle.ts), a `public-key` counter beside
 * the handles'. It is keyed by that id whether or not it names a person of the organisation, so
 * known and unknown user handles are counted alike, under the same keyed hash as the handles'
 * (so the table holds no unknown id in the clear); the `user_handle` tag keeps it apart from any
 * handle's. Its own counter rather than the person's handles': the login names no handle, and
 * were its failures counted on the person's handles, a 429 on a by-handle login after guessing
 * at a user handle would tell that the handle and the id are one person.
 */
export function userHandleCounter(
  { orgId, namedId, personId }: { orgId: string; namedId: string; personId: string | null },
  hashCode: (code: string) => string,
): AttemptCounter {
  return { orgId, subject: `att_${hashCode(`${PUBLIC_KEY}:user_handle:${namedId}`)}`, personId, credentialType: PUBLIC_KEY };
}

/**
 * The counters of a person's current handles (and, for `public-key`, of their passkeys' user
 * handle), for the given types: what a reset must clear besides the counters last counted for
 * the person, since a handle's counter may have been counted (and locked) before the handle
 * named this person.
 */
export function handleCounterSubjects(
  orgId: string,
  person: Pick<Person, 'id' | 'handles'>,
  hashCode: (code: string) => string,
  credentialTypes: readonly string[] = COUNTED_CREDENTIAL_TYPES,
): string[] {
  const ofHandles = person.handles.flatMap((handle) =>
    credentialTypes.map((credentialType) => attemptCounter({ orgId, handle, personId: person.id, credentialType }, hashCode).subject),
  );
  const ofUserHandle = credentialTypes.includes(PUBLIC_KEY) ? [userHandleCounter({ orgId, namedId: person.id, personId: person.id }, hashCode).subject] : [];
  return [...ofHandles, ...ofUserHandle];
}
