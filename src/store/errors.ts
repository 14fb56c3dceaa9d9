import type { Handle } from '../validation/handle.ts';

/** `passkey`: a public-key credential whose WebAuthn credential id the organisation holds already, for any person. */
export type ConflictSubject = 'organization_name' | 'api_key_name' | 'person_handle' | 'secret' | 'connection_name' | 'identity_user_name' | 'passkey';

/** A write broke a uniqueness rule; nothing of it was kept. */
export class ConflictError extends Error {
  readonly subject: ConflictSubject;
  /** For person handles: the handle that is taken. */
  readonly handle: Handle | undefined;
  /** `cause`: the database's refusal, where the rule was a unique index's (for the log). */
  constructor(subject: ConflictSubject, handle?: Handle, cause?: unknown) {
    super(`unique rule broken: ${subject}`, cause === undefined ? undefined : { cause });
    this.name = 'ConflictError';
    this.subject = subject;
    this.handle = handle;
  }
}

/** The database could not be reached or went away mid-operation; nothing was committed. */
export class StorageUnavailableError extends Error {
  constructor(cause: unknown) {
    super('storage unavailable', { cause });
    this.name = 'StorageUnavailableError';
  }
}
