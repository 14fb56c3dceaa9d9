/** How far a console session has got: a password accepted and a second factor still owed, or signed in. */
export const consoleSessionStages = ['second_factor', 'signed_in'] as const;
export type ConsoleSessionStage = (typeof consoleSessionStages)[number];

/** One browser's sign-in to the console (src/console/session.ts). */
export interface ConsoleSession {
  /** SHA-256 of the cookie's value: the cookie alone opens the session, and the table holds no cookie. */
  idHash: string;
  orgId: string;
  personId: string;
  stage: ConsoleSessionStage;
  /** At stage second_factor, the hash of the sign-in ticket (src/authn/second-factor/) that the second factor completes. */
  ticketHash: string | null;
  /** How the person proved who they are (RFC 8176 amr values): `mfa` when two factors were proven. */
  amr: string[];
  /** The person's generation when the session began: a later one ends it (design §5). */
  generation: number;
  /** When the person last proved who they are, at sign-in or when confirming a sensitive action. */
  authTime: number;
  createdAt: number;
  lastSeenAt: number;
  /** The absolute end, whatever the activity. */
  expiresAt: number;
}

/**
 * Console sessions, in the store so that any replica answers any request of a browser. Each
 * is removed with its person (foreign key), so deleting a person signs them out everywhere.
 */
export interface ConsoleSessionStore {
  createConsoleSession(session: ConsoleSession): Promise<void>;
  /** The session whose cookie hashes to `idHash`, if it has not reached its absolute end by `now`. */
  getConsoleSession(idHash: string, now: number): Promise<ConsoleSession | undefined>;
  /** Marks activity; a session idle too long is refused by the caller, not here. */
  touchConsoleSession(idHash: string, at: number): Promise<void>;
  /** Moves the session to the person's new generation (it carries on after its person's own change); false when the session is gone. */
  setConsoleSessionGeneration(idHash: string, generation: number): Promise<boolean>;
  /** Records that the person proved who they are again at `at` (a sensitive action's confirmation); false when the session is gone. */
  reauthenticateConsoleSession(idHash: string, at: number): Promise<boolean>;
  /** Ends one session; true when it was there. */
  deleteConsoleSession(idHash: string): Promise<boolean>;
  /** Ends every session of the person (sign out everywhere); returns how many. */
  deleteConsoleSessionsOfPerson(orgId: string, personId: string): Promise<number>;
  /** Removes at most `limit` sessions past their absolute end, or idle since before `idleBefore`; returns how many. */
  purgeConsoleSessions(now: number, idleBefore: number, limit: number): Promise<number>;
}
