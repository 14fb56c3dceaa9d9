/**
 * What the load did and what the service acknowledged: every answer counted per operation and
 * status, every write answered 2xx kept so that it can be looked for afterwards, and every
 * broken promise noticed during the run written down as a violation.
 */
export type Outcome = number | 'network' | 'timeout';

export interface AckedWrites {
  persons: string[];
  credentials: string[];
  /** Opaque client_credentials tokens: rows of their own, which introspection must still find. */
  tokens: string[];
  /** SCIM identities created (and not removed since) by their SCIM id. */
  identities: Set<string>;
  /** Identities removed over SCIM, with when the removal was acknowledged. */
  removed: Map<string, number>;
  /** Writes sent whose answer never came: they may or may not have happened, so neither is checked. */
  inDoubt: number;
}

/** The kinds of broken promise, each counted whole (the texts kept are capped). */
export type ViolationKind = 'server error' | 'no retry-after' | 'hang' | 'removed identity' | 'other';

export class Ledger {
  readonly outcomes = new Map<string, Map<Outcome, number>>();
  readonly acked: AckedWrites = { persons: [], credentials: [], tokens: [], identities: new Set(), removed: new Map(), inDoubt: 0 };
  /** The error codes of the answers other than 2xx, over every operation: why they were refused. */
  readonly codes = new Map<string, number>();
  readonly violations: string[] = [];
  readonly violationCounts = new Map<ViolationKind, number>();
  /** Answers the service gave with 503: each must say when to come back. */
  unavailable = 0;

  record(operation: string, outcome: Outcome): void {
    const counts = this.outcomes.get(operation) ?? new Map<Outcome, number>();
    counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
    this.outcomes.set(operation, counts);
  }

  refusedWith(status: number, code: string): void {
    const key = `${status} ${code}`;
    this.codes.set(key, (this.codes.get(key) ?? 0) + 1);
  }

  violation(kind: ViolationKind, text: string): void {
    this.violationCounts.set(kind, (this.violationCounts.get(kind) ?? 0) + 1);
    // A broken promise repeats under load; a hundred texts are as telling as a million and stay readable.
    if (this.violations.length < 100) this.violations.push(text);
  }

  /** A write sent whose answer never came (its replica killed under it): it may or may not have happened. */
  unanswered(answer: unknown): void {
    if (answer === undefined) this.acked.inDoubt++;
  }

  violationsOf(kind: ViolationKind): number {
    return this.violationCounts.get(kind) ?? 0;
  }

  get requests(): number {
    let total = 0;
    for (const counts of this.outcomes.values()) for (const n of counts.values()) total += n;
    return total;
  }

  /** How many answers had `status`, over every operation. */
  count(outcome: Outcome): number {
    let total = 0;
    for (const counts of this.outcomes.values()) total += counts.get(outcome) ?? 0;
    return total;
  }
}
