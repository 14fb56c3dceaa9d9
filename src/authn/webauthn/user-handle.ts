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
