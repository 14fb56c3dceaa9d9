import { DEFAULT_FAILURE_TIME_MS } from '../config/defaults.ts';
import { ApiError } from '../errors/api-error.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { AttemptCounter } from '../store/authn/store.ts';
import type { Credential, CredentialStore } from '../store/credentials/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { Handle, Organization, Person } from '../store/types.ts';
import type { AttemptTicket } from './attempt-limiter.ts';
import { type AttemptMetrics, unreportedAttempts } from './attempt-metrics.ts';
import type { AttemptOutcome } from './attempt-record.ts';
import { attemptCounter } from './attempt-subject.ts';
import { recordAuthnAttempt } from './audit.ts';
import { failureClockNow, waitForFailureTime } from './failure-time.ts';
import type { AmrValue } from './person-token.ts';

/** What a method's check found: the credential it matched (and spent), or why it failed. */
export type CheckOutcome =
  | { kind: 'success'; credential: Credential /** The audit method: e.g. totp or recovery_code. */; method: string }
  | { kind: 'failure' /** A word of our own for the audit (wrong_secret, replayed, …); never input. */; reason: string };

/** One way of proving who one is (a password, a TOTP code): what the shared flow asks of it. */
export interface LoginMethod {
  /** The audit method of attempts that do not get as far as a match. */
  readonly method: string;
  readonly credentialType: string;
  readonly amr: readonly AmrValue[];
  /** Its failures are answered at the failure time (failure-time.ts), whatever the handle names: a password's and a code's are. */
  readonly failuresWaitForTheBudget?: boolean;
  /** The work a check would have done, when there is nothing to check against: the answer's timing must not tell. */
  withoutCredential(): Promise<void>;
  /** Checks the secret against the person's credentials of `credentialType`; spends what is single-use before success. */
  check(orgId: string, credentials: readonly Credential[]): Promise<CheckOutcome>;
  /** After a success, before the token is answered (e.g. upgrading a weak password hash). */
  afterSuccess?(orgId: string, credential: Credential): Promise<void>;
}

/** The part of AttemptLimiter the flow uses; tests of the spending rule pass one that never refuses. */
export interface AttemptGate {
  begin(counter: AttemptCounter): Promise<AttemptTicket>;
}

export interface LoginFlowDeps {
  store: PersonStore & CredentialStore & AuditStore;
  limiter: AttemptGate;
  /** The credentials' keyed hash, which names a handle's attempt counters. */
  hashCode: (code: string) => string;
  now: () => number;
  /** How long after it began a failure of a method that waits for the budget is answered; default DEFAULT_FAILURE_TIME_MS. */
  failureTimeMs?: number;
  /** Where attempts the audit log does not keep are counted. */
  metrics?: AttemptMetrics;
}

/** Every failed authentication, whatever failed: the answer must not tell a handle or credential exists. */
export function authenticationFailed(): ApiError {
  return new ApiError('UNAUTHENTICATED', 'authentication: the handle and the secret do not match');
}

/**
 * The one path of every login: handle → person (or nobody) → the attempt limiter (the
 * handle's counter for this credential type) → the method's check and spend → last_used → audit. Password and TOTP
 * logins differ only in their LoginMethod, so the rules that keep logins safe (counting before
 * checking, the same answer for every failure, an audit event per attempt) are written once.
 */
export class LoginFlow {
  readonly #deps: LoginFlowDeps;

  constructor(deps: LoginFlowDeps) {
    this.#deps = deps;
  }

  /**
   * Who proved themselves with `method`, and how: what a token or a console session of theirs is
   * then made from (after the second factor, when one is owed). `handle` must be canonical
   * (validation/handle.ts), so every spelling counts as one subject.
   */
  async authenticate(org: Organization, handle: Handle, method: LoginMethod): Promise<{ person: Person; amr: readonly AmrValue[] }> {
    const { store, limiter, hashCode, now, failureTimeMs = DEFAULT_FAILURE_TIME_MS, metrics = unreportedAttempts } = this.#deps;
    const started = failureClockNow();
    const person = await store.findPersonByHandle(org.id, handle);
    const personId = person?.id ?? null;
    const audit = (outcome: AttemptOutcome, reason: string | null, credentialId: string | null = null, auditMethod = method.method) =>
      recordAuthnAttempt(store, now, { orgId: org.id, method: auditMethod, personId, credentialId, outcome, reason }, metrics);

    let ticket: AttemptTicket;
    try {
      ticket = await limiter.begin(attemptCounter({ orgId: org.id, handle, personId, credentialType: method.credentialType }, hashCode));
    } catch (error) {
      if (error instanceof ApiError && error.code === 'TOO_MANY_ATTEMPTS') await audit('refused', 'too_many_attempts');
      throw error;
    }

    let outcome: CheckOutcome;
    try {
      const credentials = personId ? await store.listCredentialsOfType(org.id, personId, method.credentialType) : [];
      if (credentials.length === 0) {
        await method.withoutCredential();
        outcome = { kind: 'failure', reason: personId ? 'no_credential' : 'unknown_handle' };
      } else {
        outcome = await method.check(org.id, credentials);
      }
    } catch (error) {
      // No secret was judged (the hashing queue was full, the store failed): the attempt is taken back.
      await ticket.abandoned();
      const reason = error instanceof ApiError && error.code === 'PASSWORD_CHECKS_BUSY' ? 'busy' : 'error';
      await audit('refused', reason).catch(() => {});
      throw error;
    }

    // Anything but a success is a failure (fail closed).
    if (outcome.kind !== 'success' || !person) {
      await ticket.failed();
      await audit('failure', outcome.kind === 'failure' ? outcome.reason : 'unknown_handle');
      // Only a judged failure waits: a 429 (counted alike for known and unknown handles) or a 503
      // (nothing judged) did no hash work and is answered at once, as Retry-After asks.
      if (method.failuresWaitForTheBudget) await waitForFailureTime(started, failureTimeMs);
      throw authenticationFailed();
    }
    const { credential } = outcome;
    await store.touchCredentialLastUsed(org.id, credential.id, now());
    await ticket.succeeded();
    await audit('success', null, credential.id, outcome.method);
    await method.afterSuccess?.(org.id, credential);
    return { person, amr: method.amr };
  }
}
