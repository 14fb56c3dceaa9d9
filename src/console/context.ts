import type { FastifyReply, FastifyRequest } from 'fastify';
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
  /** A session at stage signed_in. */
  signedIn: SignedIn | undefined;
  /** A session whose password was accepted and whose TOTP code is still owed. */
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

/** The signed-in person, holding `role` when one is named; else sign-in (303) or 403. */
export function signedIn(request: FastifyRequest, role?: PersonRole): SignedIn {
  const { signedIn: who, state } = consoleRequest(request);
  if (!who) throw new SignInRequired(state.stale ? 'expired' : undefined);
  if (role !== undefined && !who.person.roles.includes(role)) {
    throw new ApiError('FORBIDDEN', `console: this page is for persons holding the ${role} role`);
  }
  return who;
}

/** After a form's POST: back to a page by GET (303), so reloading never posts twice. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('location', location).send();
}
