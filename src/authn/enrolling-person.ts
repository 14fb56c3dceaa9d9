import type { FastifyReply, FastifyRequest } from 'fastify';
import { invalidField, personNotFound } from '../errors/api-error.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { organizationOf } from '../http/organization-header.ts';
import type { TokenReader } from '../oauth/tokens/reader.ts';
import type { CredentialStore } from '../store/credentials/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { Organization, Person } from '../store/types.ts';
import { hasSecondFactor, type Proof, provedTwoFactors, requireAssurance, SECOND_FACTOR_TYPES, twoFactorsNeeded } from './assurance.ts';
import { personOfBearer } from './person-bearer.ts';

/** Who enrols: the organisation and the person, and either the admin key used or what the person proved. */
export interface Enroller {
  org: Organization;
  person: Person;
  apiKeyId: string | null;
  /** The person's own sign-in (their JWT, or their console session); null for an admin key. */
  proof: Proof | null;
}

/**
 * The one rule for enrolment routes: with `Authorization: Bearer`, a person JWT of this
 * organisation (not a client's token, not a delegated one) enrols the person it names, and
 * `person_id` is refused; without it, an admin key of the organisation enrols the person named
 * by `person_id`, which is then required. A person may add a factor for themselves, and an
 * administrator for anyone, but a service acting for a person may not. What the person's own
 * sign-in must have proven is asked by each operation (requireFactorManagement).
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
    const { person, proof } = await personOfBearer(authorization, org, store, reader);
    if (personId !== undefined) throw invalidField('body.person_id', 'is not allowed with a person JWT: the token names the person');
    return { org, person, apiKeyId: null, proof };
  }
  await requireApiKey(store, ['admin']).call(request.server, request, reply);
  const { org, key } = tenantOf(request);
  if (personId === undefined) throw invalidField('body.person_id', 'is required with an API key (or authenticate as the person with a person JWT)');
  const person = await store.getPerson(org.id, personId);
  if (!person) throw personNotFound('body.person_id');
  return { org, person, apiKeyId: key.id, proof: null };
}

/**
 * What a new second factor is stored under when the sign-in that adds it proved one factor: only
 * as the person's first (decided with the insert, against a concurrent enrolment), else `refusal`.
 */
export interface FirstSecondFactor {
  types: readonly string[];
  refusal: () => Error;
}

/**
 * Design §5, for a person managing their own factors: a sign-in at all (never a minted token),
 * with two factors once they hold a second factor, and no older than ten minutes for `recent`
 * operations (removals, new recovery codes). An administrator's key manages anyone's factors.
 * For a sign-in without two factors, answers the condition its new factor must be stored under.
 */
export async function requireFactorManagement(
  store: Pick<CredentialStore, 'listCredentialsOfType'>,
  enroller: Pick<Enroller, 'org' | 'person' | 'proof'>,
  operation: string,
  recent?: { now: number },
): Promise<FirstSecondFactor | undefined> {
  if (enroller.proof === null) return undefined;
  const twoFactors = await hasSecondFactor(store, enroller.org.id, enroller.person.id);
  requireAssurance(enroller.proof, { twoFactors, ...(recent ? { recent } : {}) }, operation);
  return provedTwoFactors(enroller.proof) ? undefined : { types: SECOND_FACTOR_TYPES, refusal: () => twoFactorsNeeded(operation) };
}
