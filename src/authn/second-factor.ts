import { SWEEP_LIMIT } from '../concurrency/in-batches.ts';
import { hashSecret, newSecret } from '../crypto/ids.ts';
import { ApiError } from '../errors/api-error.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { CredentialStore } from '../store/credentials/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { SecondFactorTicket, SecondFactorTicketStore } from '../store/second-factor-tickets/store.ts';
import type { Handle, Organization, Person } from '../store/types.ts';
import { type SecondFactorMethod, secondFactorMethods, withTwoFactors } from './assurance.ts';
import { type AttemptMetrics, unreportedAttempts } from './attempt-metrics.ts';
import { recordAuthnAttempt } from './audit.ts';
import { authenticationFailed } from './login-flow.ts';
import type { AmrValue, SignIn } from './person-token.ts';

/** Long enough to fetch a phone or touch a key; short enough that a ticket left behind is soon worth nothing. */
export const TICKET_LIFETIME_MS = 5 * 60_000;
/** Wrong codes (or passkeys) a ticket allows before the password must be given again. */
export const TICKET_MAX_ATTEMPTS = 5;
/** Prefix of the ticket a client holds; recognisable by secret scanners, like every bearer secret of ours. */
const TICKET_PREFIX = 'sft';

export interface SecondFactorDeps {
  store: SecondFactorTicketStore & CredentialStore & PersonStore & AuditStore;
  now: () => number;
  /** Where a ticket that names nothing is counted (never the audit log: anyone can send one). */
  attemptMetrics?: AttemptMetrics;
}

/** After a right password: signed in (the person has no second factor), or a ticket that the second factor completes. */
export type AfterPassword =
  | { kind: 'signed_in'; signIn: SignIn }
  | { kind: 'second_factor'; ticket: string; ticketHash: string; expiresAt: number; methods: SecondFactorMethod[] };

/**
 * Design §5: a person who holds a TOTP or passkey credential is not signed in by a password
 * alone. They get a ticket instead: a bearer secret kept only as its hash, for 5 minutes, which
 * a second factor completes once. `handle` is the one the password was checked for.
 */
export async function afterPassword(deps: SecondFactorDeps, org: Organization, person: Person, handle: Handle): Promise<AfterPassword> {
  const at = deps.now();
  const methods = await secondFactorMethods(deps.store, org.id, person.id);
  if (methods.length === 0) return { kind: 'signed_in', signIn: { personId: person.id, amr: ['pwd'], authTime: at, generation: person.generation } };
  const ticket = newSecret(TICKET_PREFIX);
  const ticketHash = hashSecret(ticket);
  const expiresAt = at + TICKET_LIFETIME_MS;
  // Tickets nobody came back for are cleared here, as WebAuthn challenges are at their start.
  await deps.store.purgeSecondFactorTickets(at, SWEEP_LIMIT);
  const stored = await deps.store.createSecondFactorTicket({
    idHash: ticketHash,
    orgId: org.id,
    personId: person.id,
    handle,
    amr: ['pwd'],
    generation: person.generation,
    createdAt: at,
    expiresAt,
  });
  // Deleted since the password was checked: as if the password had been wrong.
  if (!stored) throw authenticationFailed();
  return { kind: 'second_factor', ticket, ticketHash, expiresAt, methods };
}

/** The hash a ticket is stored under: what a client's ticket, or a console session, names it by. */
export function ticketHashOf(ticket: string): string {
  return hashSecret(ticket);
}

/** A ticket that can still be completed, without counting an attempt (a passkey's options need its person); else 401. */
export async function openTicket(deps: SecondFactorDeps, org: Organization, ticketHash: string): Promise<SecondFactorTicket> {
  const ticket = await deps.store.getSecondFactorTicket(org.id, ticketHash, deps.now(), TICKET_MAX_ATTEMPTS);
  if (!ticket) throw ticketRefused();
  return ticket;
}

/** What a second factor proved: whose it was, and the methods (otp; hwk or swk, with user). */
export interface SecondFactorProof {
  personId: string;
  amr: readonly AmrValue[];
}

/**
 * Completes a sign-in: counts an attempt on the ticket (refused once it has had 5, or expired),
 * has `prove` check the second factor (a login of its own, counted on the handle's counters and
 * audited as such), and spends the ticket, which exactly one completion does. The sign-in carries
 * both factors' methods and `mfa`. `method` names the attempt in the audit when the ticket fails.
 */
export async function completeSignIn(
  deps: SecondFactorDeps,
  org: Organization,
  ticketHash: string,
  method: 'totp' | 'webauthn',
  prove: (ticket: SecondFactorTicket) => Promise<SecondFactorProof>,
): Promise<SignIn> {
  const { store, now } = deps;
  const ticket = await store.countSecondFactorAttempt(org.id, ticketHash, now(), TICKET_MAX_ATTEMPTS);
  if (!ticket) {
    await recordAuthnAttempt(
      store,
      now,
      { orgId: org.id, method, personId: null, credentialId: null, outcome: 'failure', reason: 'no_such_ticket' },
      deps.attemptMetrics ?? unreportedAttempts,
    );
    throw ticketRefused();
  }
  let proof: SecondFactorProof;
  try {
    proof = await prove(ticket);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'UNAUTHENTICATED') throw wrongSecondFactor(TICKET_MAX_ATTEMPTS - ticket.attempts);
    throw error;
  }
  // Another person's passkey proves nothing of this ticket's person: a wrong second factor, the ticket still open.
  if (proof.personId !== ticket.personId) throw wrongSecondFactor(TICKET_MAX_ATTEMPTS - ticket.attempts);
  const person = await store.getPerson(org.id, ticket.personId);
  // A generation raised since the password (sign out everywhere), or a completion that lost the
  // race to spend the ticket: neither signs anyone in.
  const current = person !== undefined && person.generation === ticket.generation;
  if (!current || !(await store.spendSecondFactorTicket(org.id, ticketHash))) throw ticketRefused();
  return {
    personId: person.id,
    amr: withTwoFactors([...(ticket.amr as AmrValue[]), ...proof.amr]),
    authTime: now(),
    generation: person.generation,
  };
}

function ticketRefused(): ApiError {
  return new ApiError(
    'SECOND_FACTOR_TICKET_INVALID',
    `body.second_factor_ticket: is unknown, already used, expired (a ticket lives ${TICKET_LIFETIME_MS / 60_000} minutes) or has had its ${TICKET_MAX_ATTEMPTS} attempts; log in with the password again`,
  );
}

function wrongSecondFactor(attemptsLeft: number): ApiError {
  const left =
    attemptsLeft > 0
      ? `${attemptsLeft} more ${attemptsLeft === 1 ? 'attempt' : 'attempts'} with this ticket`
      : 'no more attempts with this ticket: log in with the password again';
  return new ApiError('UNAUTHENTICATED', `authentication: the second factor does not match; ${left}`);
}
