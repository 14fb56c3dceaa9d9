import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SWEEP_LIMIT } from '../concurrency/in-batches.ts';
import { consoleSessionDefaults } from '../config/defaults.ts';
import { derivedKey } from '../crypto/derived-key.ts';
import { hashSecret, randomSecret } from '../crypto/ids.ts';
import { ApiError } from '../errors/api-error.ts';
import type { ConsoleSession, ConsoleSessionStore } from '../store/console-sessions/store.ts';
import { type CookieNames, cookieNames, readCookie, setCookie } from './cookies.ts';

export interface SessionPolicy {
  /** Secure cookies with the __Host- prefix: everywhere but development (plain http on localhost). */
  secure: boolean;
  idleMs: number;
  absoluteMs: number;
  secondFactorMs: number;
  touchEveryMs: number;
}

/** What a request's cookies amount to: a live session, and the value its CSRF token is bound to. */
export interface BrowserState {
  session: ConsoleSession | undefined;
  /** The cookie value the page's forms are bound to: the session's, else the anonymous cookie's (new if absent). */
  binding: string;
  /** Set when the anonymous cookie was made for this response. */
  newAnonymous: boolean;
  /** A session cookie came that opens no session (ended, idle or expired): the browser is sent to sign in again, and the cookie cleared. */
  stale?: boolean;
}

const CSRF_PURPOSE = 'console-csrf';

/**
 * Console sessions: a random cookie whose SHA-256 names a store row, checked against idle and
 * absolute timeouts on every request, replaced at every stage of sign-in (so a cookie planted
 * before sign-in is worth nothing after it), and ended server-side at sign-out, so a copy of
 * the cookie taken before then opens nothing.
 */
export class ConsoleSessions {
  readonly names: CookieNames;
  readonly #store: ConsoleSessionStore;
  readonly #policy: SessionPolicy;
  readonly #csrfKey: KeyObject;
  readonly #now: () => number;

  constructor(store: ConsoleSessionStore, secret: string, now: () => number, policy: Partial<SessionPolicy> & Pick<SessionPolicy, 'secure'>) {
    this.#store = store;
    this.#policy = { ...consoleSessionDefaults, ...policy };
    this.names = cookieNames(this.#policy.secure);
    this.#csrfKey = derivedKey(secret, CSRF_PURPOSE);
    this.#now = now;
  }

  async read(request: FastifyRequest): Promise<BrowserState> {
    const value = readCookie(request.headers.cookie, this.names.session);
    const session = value === undefined ? undefined : await this.#live(value);
    if (value !== undefined && session) return { session, binding: value, newAnonymous: false };
    return { ...this.signedOut(request), stale: value !== undefined };
  }

  /** The state of a browser without a session: its anonymous cookie, or a new one. */
  signedOut(request: FastifyRequest): BrowserState {
    const anonymous = readCookie(request.headers.cookie, this.names.anonymous);
    return anonymous === undefined
      ? { session: undefined, binding: randomSecret(), newAnonymous: true }
      : { session: undefined, binding: anonymous, newAnonymous: false };
  }

  async #live(value: string): Promise<ConsoleSession | undefined> {
    const now = this.#now();
    const idHash = hashSecret(value);
    const session = await this.#store.getConsoleSession(idHash, now);
    if (!session) return undefined;
    const idleLimit = session.stage === 'signed_in' ? this.#policy.idleMs : this.#policy.secondFactorMs;
    if (now - session.lastSeenAt >= idleLimit) {
      await this.#store.deleteConsoleSession(idHash);
      return undefined;
    }
    if (now - session.lastSeenAt >= this.#policy.touchEveryMs) await this.#store.touchConsoleSession(idHash, now);
    return session;
  }

  /** Sets the anonymous cookie when read() made one, so the forms of this page can be posted back. */
  keepAnonymous(reply: FastifyReply, state: BrowserState): void {
    if (state.newAnonymous) reply.header('set-cookie', setCookie(this.names.anonymous, state.binding, { secure: this.#policy.secure }));
    if (state.stale) reply.header('set-cookie', setCookie(this.names.session, '', { secure: this.#policy.secure, maxAge: 0 }));
  }

  /**
   * Starts a session at `stage`, ending the browser's previous one: a new cookie value at every
   * step, so a session id known before a step (fixation) is never the one after it.
   */
  async begin(
    reply: FastifyReply,
    previous: BrowserState,
    party: Pick<ConsoleSession, 'orgId' | 'personId' | 'stage' | 'amr' | 'generation'> & { ticketHash?: string; authTime?: number },
  ): Promise<void> {
    const now = this.#now();
    // Sessions nobody came back to are cleared here, as WebAuthn challenges are at their start:
    // sign-ins are few, and both conditions are indexed.
    await this.#store.purgeConsoleSessions(now, now - this.#policy.idleMs, SWEEP_LIMIT);
    const lifetime = party.stage === 'signed_in' ? this.#policy.absoluteMs : this.#policy.secondFactorMs;
    await this.#replace(reply, previous, {
      orgId: party.orgId,
      personId: party.personId,
      stage: party.stage,
      ticketHash: party.ticketHash ?? null,
      amr: party.amr,
      generation: party.generation,
      authTime: party.authTime ?? now,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + lifetime,
    });
  }

  /**
   * The browser's signed-in session with the methods of a factor just proven added, under a new
   * cookie (what the session proves went up, so a cookie known before must not carry it). When it
   * began, its sign-in time and its absolute end stay as they were.
   */
  async strengthen(reply: FastifyReply, state: BrowserState, amr: string[]): Promise<void> {
    const session = state.session;
    if (!session) throw new TypeError('strengthen needs the browser to have a session');
    const { idHash: _previous, ...kept } = session;
    await this.#replace(reply, state, { ...kept, amr, lastSeenAt: this.#now() });
  }

  /**
   * Keeps this browser signed in at the person's new generation, after a change of their own (they
   * removed a factor, or changed their own roles) that ended every other sign-in of theirs. The
   * cookie stays: the session proves no more than before, and the page's other forms stay valid.
   */
  async carryOn(state: BrowserState, generation: number): Promise<void> {
    if (state.session) await this.#store.setConsoleSessionGeneration(state.session.idHash, generation);
  }

  /** Records that the person proved who they are again now: sensitive actions are open for the next ten minutes. */
  async reauthenticated(state: BrowserState): Promise<void> {
    if (state.session) await this.#store.reauthenticateConsoleSession(state.session.idHash, this.#now());
  }

  async #replace(reply: FastifyReply, previous: BrowserState, next: Omit<ConsoleSession, 'idHash'>): Promise<void> {
    if (previous.session) await this.#store.deleteConsoleSession(previous.session.idHash);
    const value = randomSecret();
    await this.#store.createConsoleSession({ idHash: hashSecret(value), ...next });
    const secure = this.#policy.secure;
    reply.header('set-cookie', [
      // A browser-session cookie: closing the browser of a shared helpdesk desk ends it there too.
      setCookie(this.names.session, value, { secure }),
      setCookie(this.names.anonymous, '', { secure, maxAge: 0 }),
    ]);
  }

  /** Ends the browser's session (sign-out) and clears its cookie. */
  async end(reply: FastifyReply, state: BrowserState): Promise<void> {
    if (state.session) await this.#store.deleteConsoleSession(state.session.idHash);
    reply.header('set-cookie', setCookie(this.names.session, '', { secure: this.#policy.secure, maxAge: 0 }));
  }

  /** Ends every session of the person, this browser's included. */
  async endEverywhere(reply: FastifyReply, session: ConsoleSession): Promise<number> {
    const ended = await this.#store.deleteConsoleSessionsOfPerson(session.orgId, session.personId);
    reply.header('set-cookie', setCookie(this.names.session, '', { secure: this.#policy.secure, maxAge: 0 }));
    return ended;
  }

  /** The token every form of the page carries: an HMAC of the cookie it is bound to, so another site can neither read nor forge it. */
  csrfToken(state: BrowserState): string {
    return createHmac('sha256', this.#csrfKey).update(state.binding).digest('base64url');
  }

  /** 403 unless `given` is this browser's token. */
  checkCsrf(state: BrowserState, given: unknown): void {
    const expected = Buffer.from(this.csrfToken(state));
    const actual = Buffer.from(typeof given === 'string' ? given : '');
    if (state.newAnonymous || actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
      throw new ApiError('CSRF_TOKEN_INVALID', 'form field _csrf: is missing or does not belong to this browser; reload the page and submit the form again');
    }
  }
}
