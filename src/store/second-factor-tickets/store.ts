import type { Handle } from '../persons/store.ts';

/**
 * A sign-in halfway through (design §5): the password was right, and a second factor is owed.
 * The ticket itself is a bearer secret held by the client; the store keeps only its SHA-256.
 */
export interface SecondFactorTicket {
  idHash: string;
  orgId: string;
  personId: string;
  /** The handle the password was checked for: the second factor's attempts count on its counters. */
  handle: Handle;
  /** What was proven so far (RFC 8176): `pwd`. */
  amr: string[];
  /** The person's generation when the password was checked: a raise meanwhile ends the ticket. */
  generation: number;
  /** Second-factor attempts counted so far, right or wrong. */
  attempts: number;
  createdAt: number;
  expiresAt: number;
}

/**
 * Second-factor tickets. Counting an attempt and spending the ticket are each one conditional
 * statement, so replicas racing on one ticket count every attempt and spend it exactly once.
 */
export interface SecondFactorTicketStore {
  /** Stores a new ticket at 0 attempts; false, storing nothing, when the person is gone. */
  createSecondFactorTicket(ticket: Omit<SecondFactorTicket, 'attempts'>): Promise<boolean>;
  /** The ticket, if it is unexpired at `now` and has fewer than `maxAttempts` attempts; nothing is counted. */
  getSecondFactorTicket(orgId: string, idHash: string, now: number, maxAttempts: number): Promise<SecondFactorTicket | undefined>;
  /** Counts one attempt, only if the ticket is unexpired at `now` and below `maxAttempts`: the ticket after the count, or undefined. */
  countSecondFactorAttempt(orgId: string, idHash: string, now: number, maxAttempts: number): Promise<SecondFactorTicket | undefined>;
  /** Deletes the ticket: true for exactly one of any number of concurrent callers. */
  spendSecondFactorTicket(orgId: string, idHash: string): Promise<boolean>;
  /** Removes at most `limit` tickets expired by `now`; returns how many. */
  purgeSecondFactorTickets(now: number, limit: number): Promise<number>;
}
