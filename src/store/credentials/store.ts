import type { Page, PageRequest } from '../page.ts';

/**
 * A person's credential. The store knows neither `params` nor `secret` by shape: each
 * credential type (src/credentials/<type>/) decides them. `params` may be shown back to
 * an administrator; `secret` (a sealed TOTP key, hashed recovery codes, a password hash as
 * verified) never leaves the service.
 */
export interface Credential {
  /** `crd_` time-ordered id (crypto/ids.ts). */
  id: string;
  orgId: string;
  personId: string;
  type: string;
  label: string | null;
  params: Record<string, unknown>;
  secret: Record<string, unknown> | null;
  /**
   * Counts every change of params and secret, starting at 0. A change is made only against
   * the version it was computed from (updateCredentialIf), so spending a single-use thing
   * (a recovery code, a TOTP time step, a WebAuthn counter) succeeds exactly once.
   */
  version: number;
  /** The last successful authentication with it; null until then. */
  lastUsed: number | null;
  createdAt: number;
}

/** What a credential's next version holds: both parts, written together. */
export interface CredentialData {
  params: Record<string, unknown>;
  secret: Record<string, unknown> | null;
}

/** Persons' credentials, always addressed within their organisation (and person). */
export interface CredentialStore {
  /**
   * Stores a new credential at version 0. Returns false, storing nothing, when the person is
   * not a person of the organisation (or is deleted meanwhile): a credential never outlives
   * its person, whose deletion removes their credentials in the same transaction.
   *
   * A `public-key` credential is the one thing the store reads params of: its
   * `webauthn_credential_id` is the organisation's once, whoever holds it (W3C WebAuthn §7.1 step
   * 26). One the organisation has already, for any person, throws ConflictError 'passkey' and
   * stores nothing; of concurrent callers with the same id exactly one succeeds (a unique index).
   */
  createCredential(credential: Omit<Credential, 'version' | 'lastUsed'>): Promise<boolean>;
  /**
   * Stores a new credential at version 0 only while its person holds no credential of `types`,
   * one decision for any number of concurrent callers (the person's row is held meanwhile):
   * 'created', 'holding' when they hold one already (nothing stored), or 'no_person'. A passkey
   * the organisation has already throws as in createCredential.
   */
  createCredentialUnlessHolding(credential: Omit<Credential, 'version' | 'lastUsed'>, types: readonly string[]): Promise<'created' | 'holding' | 'no_person'>;
  getCredential(orgId: string, personId: string, id: string): Promise<Credential | undefined>;
  /** The person's credentials in creation order, keyset-paged like every list. */
  listCredentials(orgId: string, personId: string, page: PageRequest): Promise<Page<Credential>>;
  /** All the person's credentials of one type (a person has few), oldest first: what a login tries. */
  listCredentialsOfType(orgId: string, personId: string, type: string): Promise<Credential[]>;
  /**
   * Every credential of one type in the organisation, by person id: for checks that read what
   * each holds (password hashes over the cost ceilings), not for paging through persons.
   */
  listOrganizationCredentialsOfType(orgId: string, type: string): Promise<Credential[]>;
  /**
   * Deletes the credential and, in the same transaction, raises its person's generation (so the
   * tokens and console sessions they signed in to with it end); false, changing nothing, when no
   * such credential of that person exists.
   */
  deleteCredential(orgId: string, personId: string, id: string, at: number): Promise<boolean>;
  /**
   * As deleteCredential, unless it is the last credential of `types` its person holds: one
   * decision for any number of concurrent callers (the person's row is held meanwhile).
   */
  deleteCredentialKeepingOneOf(orgId: string, personId: string, id: string, types: readonly string[], at: number): Promise<'deleted' | 'last' | 'not_found'>;
  /**
   * Replaces everything the person holds by `replacement` (an invitation's reset, design §9) in
   * one transaction, the person's row held meanwhile; when anything was removed, raises their
   * generation as deleteCredential does. Undefined, changing nothing, for no such person;
   * otherwise how many credentials were removed.
   */
  replaceCredentialsOfPerson(replacement: Omit<Credential, 'version' | 'lastUsed'>, at: number): Promise<number | undefined>;
  /** Sets last_used; false when the credential is gone. */
  touchCredentialLastUsed(orgId: string, id: string, at: number): Promise<boolean>;
  /**
   * Compare-and-set in one conditional UPDATE: writes `next` and bumps the version only if
   * the stored version is still `expectedVersion`. Of any number of concurrent callers
   * holding the same version, exactly one gets true; the others changed nothing.
   */
  updateCredentialIf(orgId: string, id: string, expectedVersion: number, next: CredentialData): Promise<boolean>;
}
