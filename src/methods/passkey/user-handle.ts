/**
 * The WebAuthn user handle of passkeys registered here. Registration's options set user.id to
 * the person id, so that is the handle the authenticator keeps and returns; it is recorded on the
 * credential (in params, beside what spec §2.3 shows, which `present` does not list) so that a
 * login can compare it. A passkey imported from another system was registered there under a user
 * handle of that system's own, which is not known here: it records none.
 */
const USER_HANDLE_PARAM = 'webauthn_user_handle';

/** `params` with the person's user handle: the UTF-8 person id, base64url as user.id and userHandle carry it. */
export function withUserHandle(params: Record<string, unknown>, personId: string): Record<string, unknown> {
  return { ...params, [USER_HANDLE_PARAM]: Buffer.from(personId, 'utf8').toString('base64url') };
}

/**
 * W3C WebAuthn §7.2 step 6: when the assertion names a user handle, it must be the one the
 * credential was registered with. True when it is, when the assertion names none, and when the
 * credential has none on record (an import). The handle is outside the signature, so this refuses
 * a passkey that answers for another account, not a forgery.
 */
export function userHandleMatches(params: Record<string, unknown>, response: unknown): boolean {
  const given = (response as { response?: { userHandle?: unknown } } | null)?.response?.userHandle;
  // A user handle is 1 to 64 bytes (§5.4.3), so an empty one names nobody: the same as none.
  if (given === undefined || given === null || given === '') return true;
  const registered = params[USER_HANDLE_PARAM];
  return typeof registered !== 'string' || given === registered;
}

/** What the userHandle of a discoverable login's assertion names: an id, or why it names none (a word for the audit). */
export type NamedByUserHandle = { kind: 'named'; id: string } | { kind: 'none'; reason: 'no_user_handle' | 'undecodable_user_handle' };

/** base64url of at most 64 bytes (§5.4.3): 86 characters, without padding. */
const USER_HANDLE_SHAPE = /^[A-Za-z0-9_-]{1,86}$/;

/**
 * The id a discoverable login's assertion names by its userHandle: what registration's user.id
 * carried, the UTF-8 person id (withUserHandle). Whether a person has that id is the caller's
 * look-up. None when the assertion carries no user handle (an answer that cannot say whose it is
 * cannot log in without a handle), and none when it is not one we could have issued: not
 * canonical base64url (one id, one spelling, as userHandleMatches compares them), or not
 * printable ASCII as every person id is (`per_` and base32) — such as the random handle another
 * system gave an imported passkey, which names nobody here and need not reach the store (where
 * PostgreSQL would refuse a NUL byte with an error rather than find nobody).
 */
export function idOfUserHandle(response: unknown): NamedByUserHandle {
  const given = (response as { response?: { userHandle?: unknown } } | null)?.response?.userHandle;
  if (given === undefined || given === null || given === '') return { kind: 'none', reason: 'no_user_handle' };
  if (typeof given !== 'string' || !USER_HANDLE_SHAPE.test(given)) return { kind: 'none', reason: 'undecodable_user_handle' };
  const bytes = Buffer.from(given, 'base64url');
  if (bytes.toString('base64url') !== given || !bytes.every((b) => b >= 0x21 && b <= 0x7e)) return { kind: 'none', reason: 'undecodable_user_handle' };
  return { kind: 'named', id: bytes.toString('ascii') };
}
