import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Proof } from '../authn/assurance.ts';
import { ApiError } from '../errors/api-error.ts';
import type { ConsoleSession } from '../store/console-sessions/store.ts';
import type { Organization, Person, PersonRole } from '../store/types.ts';
import type { BrowserState } from './session.ts';

/** A signed-in console person: the session, and its organisation and person as they are now. */
export interface SignedIn {
  session: ConsoleSession;
  org: Organization;
  person: Person;
}

/** What the console knows of a request: its cookies' state, and the signed-in person if any. */
export interface ConsoleRequest {
  state: BrowserState;
  csrf: string;
  /** A session at stage signed_in, with every page open to it. */
  signedIn: SignedIn | undefined;
  /**
   * A session at stage signed_in of an administrator or verifier who proved one factor only:
   * open to the enrolment page alone until they add a second factor (design §5).
   */
  enrolling: SignedIn | undefined;
  /** A session whose password was accepted and whose second factor is still owed. */
  pending: SignedIn | undefined;
}

const requests = new WeakMap<FastifyRequest, ConsoleRequest>();

export function setConsoleRequest(request: FastifyRequest, value: ConsoleRequest): void {
  requests.set(request, value);
}

export function consoleRequest(request: FastifyRequest): ConsoleRequest {
  const value = requests.get(request);
  if (!value) throw new TypeError(`route ${request.routeOptions.url} reads the console request but is not in the console plugin`);
  return value;
}

/** Where a session that must enrol a second factor is sent, whatever page it asked for. */
export const ENROLMENT_PAGE = '/console/enrol';

/** Thrown to send a signed-out browser to the sign-in page (a redirect, not an error page). */
export class SignInRequired extends Error {
  /** The sign-in page, with why (a notice) when the browser's session has ended. */
  readonly location: string;
  constructor(why?: 'expired') {
    super('console: sign in first');
    this.name = 'SignInRequired';
    this.location = why ? `/console/sign-in?notice=${why}` : '/console/sign-in';
  }
}

/** Thrown to send a session that owes a second factor's enrolment to the enrolment page. */
export class EnrolmentRequired extends Error {
  readonly location = ENROLMENT_PAGE;
  constructor() {
    super('console: add a passkey or an authenticator app first');
    this.name = 'EnrolmentRequired';
  }
}

/** The signed-in person, holding `role` when one is named; else sign-in (303), the enrolment page (303) or 403. */
export function signedIn(request: FastifyRequest, role?: PersonRole): SignedIn {
  const { signedIn: who, enrolling, state } = consoleRequest(request);
  if (!who) {
    if (enrolling) throw new EnrolmentRequired();
    throw new SignInRequired(state.stale ? 'expired' : undefined);
  }
  if (role !== undefined && !who.person.roles.includes(role)) {
    throw new ApiError('FORBIDDEN', `console: this page is for persons holding the ${role} role`);
  }
  return who;
}

/** The signed-in person, whether or not they still owe a second factor: for the pages that add one. */
export function signedInOrEnrolling(request: FastifyRequest): SignedIn {
  const { signedIn: who, enrolling, state } = consoleRequest(request);
  const person = who ?? enrolling;
  if (!person) throw new SignInRequired(state.stale ? 'expired' : undefined);
  return person;
}

/** What the session's sign-in proved, as the core's factor rules read it. */
export function proofOf(who: SignedIn): Proof {
  return { amr: who.session.amr, authTime: who.session.authTime };
}

/** After a form's POST: back to a page by GET (303), so reloading never posts twice. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).send();
}
