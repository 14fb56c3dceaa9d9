import type { Handle } from './persons/store.ts';

export type ConflictSubject = 'organization_name' | 'api_key_name' | 'person_handle' | 'secret' | 'connection_name' | 'identity_user_name';

/** A write broke a uniqueness rule; nothing of it was kept. */
export class ConflictError extends Error {
  readonly subject: ConflictSubject;
  /** For person handles: the handle that is taken. */
  readonly handle: Handle | undefined;
  constructor(subject: ConflictSubject, handle?: Handle) {
    super(`unique rule broken: ${subject}`);
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
