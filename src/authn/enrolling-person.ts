import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, invalidField, personNotFound } from '../errors/api-error.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { type TokenReader, TokenRejected } from '../oauth/tokens/reader.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { Organization, Person } from '../store/types.ts';
import { organizationOf } from './organization-header.ts';

/** Who enrols: the organisation and the person, and the admin key when one was used. */
export interface Enroller {
  org: Organization;
  person: Person;
  apiKeyId: string | null;
}

/**
 * The one rule for enrolment routes: with `Authorization: Bearer`, a person JWT of this
 * organisation (not a client's token, not a delegated one) enrols the person it names, and
 * `person_id` is refused; without it, an admin key of the organisation enrols the person named
 * by `person_id`, which is then required. A person may add a factor for themselves, and an
 * administrator for anyone, but a service acting for a person may not.
 */
export async function enrollingPerson(
  request: FastifyRequest,
  reply: FastifyReply,
  store: OrganizationStore & PersonStore,
  reader: TokenReader,
  personId: string | undefined,
): Promise<Enroller> {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const org = await organizationOf(request, store);
    const person = await personOfBearer(authorization, org, store, reader);
    if (personId !== undefined) throw invalidField('body.person_id', 'is not allowed with a person JWT: the token names the person');
    return { org, person, apiKeyId: null };
  }
  await requireApiKey(store, ['admin']).call(request.server, request, reply);
  const { org, key } = tenantOf(request);
  if (personId === undefined) throw invalidField('body.person_id', 'is required with an API key (or authenticate as the person with a person JWT)');
  const person = await store.getPerson(org.id, personId);
  if (!person) throw personNotFound('body.person_id');
  return { org, person, apiKeyId: key.id };
}

/**
 * The person an `Authorization: Bearer <person JWT>` header names: a JWT of this service and
 * organisation held by the person itself (not a client's token, not a delegated one).
 */
export async function personOfBearer(authorization: string, org: Organization, store: PersonStore, reader: TokenReader): Promise<Person> {
  const match = /^Bearer ([^\s]+)$/i.exec(authorization);
  if (!match) throw new ApiError('UNAUTHENTICATED', 'header Authorization: must be Bearer and a person JWT');
  const value = match[1]!;
  const refused = (why: string) => new ApiError('UNAUTHENTICATED', `header Authorization: the token ${why}`);
  let token: Awaited<ReturnType<TokenReader['jwt']>>;
  try {
    token = await reader.jwt(value);
  } catch (error) {
    if (error instanceof TokenRejected) throw refused(error.message);
    throw error;
  }
  if (token.orgId !== org.id) throw refused('is of another organisation');
  if (token.act !== undefined || token.clientId !== undefined) throw refused('must be a person JWT, not a client or delegated token');
  const person = await store.getPerson(org.id, token.subject);
  if (!person) throw refused('names no person of this organisation');
  return person;
}
