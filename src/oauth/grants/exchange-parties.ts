import type { OAuthClient, OrganizationConfig, Person } from '../../store/types.ts';
import { oauthError } from '../errors.ts';
import { splitScope } from '../scope.ts';
import { SvidError } from '../spiffe/svid-error.ts';
import { EARLIER_GENERATION, isOfCurrentGeneration } from '../tokens/person-generation.ts';
import { type OwnToken, TokenRejected } from '../tokens/reader.ts';
import { TOKEN_TYPE, type TokenTypeUri, tokenShape } from '../tokens/token-types.ts';
import type { ActorTokenParameter } from './exchange-request.ts';
import type { OAuthDeps } from './grant.ts';

const PERSON_ID = /^per_/;
const CLIENT_ID = /^cli_/;
export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

// RFC 8693 §2.2.2: a subject or actor token that is invalid, or unacceptable by policy, is
// `invalid_request`; every refusal below is one.

/** Reads one of our tokens, checking that the declared type matches what it is. */
async function readOwn(deps: OAuthDeps, name: string, value: string, declared: TokenTypeUri): Promise<OwnToken> {
  const shape = tokenShape(value);
  if (shape === 'unknown') throw oauthError('invalid_request', `${name} is neither a JWT nor an access token of this server`);
  const actual = shape === 'jwt' ? TOKEN_TYPE.jwt : TOKEN_TYPE.accessToken;
  if (actual !== declared) throw oauthError('invalid_request', `${name}_type says ${declared} but the token is ${actual}`);
  try {
    return shape === 'jwt' ? await deps.reader.jwt(value) : await deps.reader.opaque(value);
  } catch (error) {
    if (error instanceof TokenRejected) throw oauthError('invalid_request', `${name} ${error.message}`);
    throw error;
  }
}

/** A deleted person's tokens stop working for delegation at once, JWTs included, and so do JWTs of an earlier generation. */
async function currentPerson(deps: OAuthDeps, name: string, token: OwnToken): Promise<Person> {
  const person = await deps.store.getPerson(token.orgId, token.subject);
  if (!person) throw oauthError('invalid_request', `${name}: the person it was issued for no longer exists`);
  if (!isOfCurrentGeneration(token, person)) throw oauthError('invalid_request', `${name} ${EARLIER_GENERATION}`);
  return person;
}

/** Deleting a client revokes its opaque tokens, but its JWTs live on: they are stopped here. */
async function requireClient(deps: OAuthDeps, name: string, orgId: string, clientId: string): Promise<void> {
  if (!(await deps.store.getClient(orgId, clientId))) throw oauthError('invalid_request', `${name}: the client it was issued to no longer exists`);
}

/**
 * The client that alone may exchange this subject, if any. A client's own token, opaque or
 * JWT, is that client acting for itself, so only that client may present it; an opaque token
 * is bound to the client it was issued to. A person's JWT, or one delegated from it, is bound
 * to none: the design lets those be exchanged clientless.
 */
function boundClient(subject: OwnToken): string | undefined {
  if (CLIENT_ID.test(subject.subject)) return subject.subject;
  return subject.format === 'opaque' ? subject.clientId : undefined;
}

/** The subject token, and its person as they are now when it names one (their generation goes into the delegated token). */
export interface Subject {
  token: OwnToken;
  person: Person | undefined;
}

/**
 * The subject: a person's or a client's token of this server (JWT or opaque), or one
 * delegated from it. Client tokens and opaque tokens are bound to their client.
 */
export async function resolveSubject(deps: OAuthDeps, token: string, type: TokenTypeUri, client: OAuthClient | undefined): Promise<Subject> {
  const subject = await readOwn(deps, 'subject_token', token, type);
  if (!PERSON_ID.test(subject.subject) && !CLIENT_ID.test(subject.subject)) {
    throw oauthError('invalid_request', "subject_token's sub must be a person or a client of this server");
  }
  if (client && client.orgId !== subject.orgId) throw oauthError('invalid_request', 'subject_token belongs to another organisation than the client');
  const person = PERSON_ID.test(subject.subject) ? await currentPerson(deps, 'subject_token', subject) : undefined;
  if (CLIENT_ID.test(subject.subject)) await requireClient(deps, 'subject_token', subject.orgId, subject.subject);
  const bound = boundClient(subject);
  if (bound !== undefined) {
    if (!client) throw oauthError('invalid_client', 'subject_token is bound to a client: authenticate as that client');
    if (client.id !== bound) throw oauthError('invalid_request', 'subject_token was issued to another client');
  }
  return { token: subject, person };
}

export interface Actor {
  /** For the `act` claim: a person id, client id or SPIFFE ID. */
  id: string;
  /** When the actor is a client acting with its own token: the scopes that token holds. */
  scopes?: string[];
}

/**
 * Starts reading an actor token of this server (a signature check, or a look-up in the store)
 * while the subject is being resolved: on PostgreSQL that takes a round trip out of the
 * request's latency. The read is only judged by resolveActor, after the subject, so a request
 * with two bad tokens is still refused for its subject. JWT-SVIDs need the organisation's
 * trust domains, known only from the subject: they are not read early.
 */
export function readActorEarly(deps: OAuthDeps, actorToken: ActorTokenParameter | undefined): Promise<OwnToken> | undefined {
  if (!actorToken) return undefined;
  if (tokenShape(actorToken.token) === 'jwt' && !issuedHere(actorToken.token, deps.issuer.issuer)) return undefined;
  const read = readOwn(deps, 'actor_token', actorToken.token, actorToken.type);
  // Refused subjects end the request before the actor is judged: its outcome may go unread.
  read.catch(() => undefined);
  return read;
}

/**
 * The actor: a person or client of this server (their own JWT or opaque token), a workload
 * (its JWT-SVID), or else the authenticated client itself. `early` is readActorEarly's read
 * of the same token: it reads every token of this server, and leaves unread only a JWT of
 * another issuer, which is verified here as a JWT-SVID.
 */
export async function resolveActor(
  deps: OAuthDeps,
  actorToken: ActorTokenParameter | undefined,
  client: OAuthClient | undefined,
  orgId: string,
  config: OrganizationConfig,
  early: Promise<OwnToken> | undefined,
): Promise<Actor> {
  if (!actorToken) {
    if (client) return { id: client.id };
    throw oauthError('invalid_request', 'actor_token is required when the request is not authenticated as a client');
  }
  // readActorEarly routed the token already: what it left unread is a JWT of another issuer.
  if (!early) {
    if (actorToken.type !== TOKEN_TYPE.jwt) throw oauthError('invalid_request', `actor_token_type says ${actorToken.type} but the token is ${TOKEN_TYPE.jwt}`);
    try {
      return { id: (await deps.svids.verify(actorToken.token, config, `${deps.issuer.issuer}/oauth2/tokens`)).spiffeId };
    } catch (error) {
      if (!(error instanceof SvidError)) throw error;
      // Our side failing to get the trust domain's keys says nothing about the token: the same
      // request may succeed once the key set can be fetched again.
      if (error.code === 'SVID_JWKS_UNAVAILABLE')
        throw oauthError('temporarily_unavailable', `actor_token: ${error.message}`, { retryAfterSeconds: error.retryAfterSeconds ?? 1 });
      throw oauthError('invalid_request', `actor_token: ${error.message}`);
    }
  }
  const actor = await early;
  if (actor.orgId !== orgId) throw oauthError('invalid_request', 'actor_token belongs to another organisation than the subject');
  // A delegated token speaks for its subject, not for whoever holds it: it cannot name an actor.
  if (actor.act) throw oauthError('invalid_request', "actor_token is itself a delegated token (it carries act); present the actor's own token");
  if (CLIENT_ID.test(actor.subject)) {
    // The authenticated client has just proven it exists and may exchange; others are looked up.
    const actingClient = actor.subject === client?.id ? client : await deps.store.getClient(orgId, actor.subject);
    if (!actingClient?.grantTypes.includes(TOKEN_EXCHANGE)) {
      throw oauthError('invalid_request', 'actor_token belongs to a client that may not act in token exchange (deleted, or without the grant)');
    }
    return { id: actor.subject, scopes: splitScope(actor.scope) };
  }
  // This server issues its own tokens to persons and clients only, as for the subject.
  if (!PERSON_ID.test(actor.subject)) throw oauthError('invalid_request', "actor_token's sub must be a person or a client of this server");
  await currentPerson(deps, 'actor_token', actor);
  return { id: actor.subject };
}

/** Peeks at the unverified `iss` only to route the token to the right verifier. */
function issuedHere(jwt: string, issuer: string): boolean {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { iss?: unknown };
    return payload.iss === issuer;
  } catch {
    // Not JSON, or JSON null: not a token of this server.
  }
  return false;
}
