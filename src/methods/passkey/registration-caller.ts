import type { FastifyRequest } from 'fastify';
import type { Proof } from '../../authn/assurance.ts';
import { personOfBearer } from '../../authn/person-bearer.ts';
import { ApiError, invalidField } from '../../errors/api-error.ts';
import { addressedOrganization, keyOfKind, singleHeader } from '../../http/organization-header.ts';
import type { Organization } from '../../store/types.ts';
import type { WebAuthnDeps } from './deps.ts';

/** Who asked to register a passkey: the person themselves (with what their sign-in proved), or the organisation's administrator. */
export type RegistrationCaller = { kind: 'person'; personId: string; proof: Proof } | { kind: 'admin_key'; keyId: string };

/**
 * Registration is authorised in exactly one of two ways (sending both is refused, so it is never
 * unclear which one counted):
 * - `Service-API-Key`: an admin key of the organisation, for any of its persons (named by
 *   `person_id` in the options body);
 * - `Authorization: Bearer <person JWT>`: the person's own JWT (person-bearer.ts). Registration
 *   adds a way to log in, so a token a client holds for the person, or acts with, is not enough,
 *   and what the sign-in must have proven is asked by the ceremony (requireFactorManagement).
 */
export async function registrationCaller(deps: WebAuthnDeps, request: FastifyRequest): Promise<{ org: Organization; caller: RegistrationCaller }> {
  const addressed = await addressedOrganization(deps.store, request);
  const { org, apiKeySent } = addressed;
  const authorization = singleHeader(request, 'authorization');
  if (apiKeySent && authorization) {
    throw new ApiError('INVALID_HEADER', 'header Authorization: send either Service-API-Key (an admin key) or Authorization (a person JWT), not both');
  }
  if (apiKeySent) {
    return { org, caller: { kind: 'admin_key', keyId: keyOfKind(addressed, ['admin']).id } };
  }
  if (!authorization) throw new ApiError('UNAUTHENTICATED', 'header Authorization: a person JWT (Bearer) or an admin Service-API-Key is required');
  const { person, proof } = await personOfBearer(authorization, org, deps.store, deps.reader);
  return { org, caller: { kind: 'person', personId: person.id, proof } };
}

/** The person whose passkey is registered: the token's subject, or the admin's `person_id`. */
export function personOfRegistration(caller: RegistrationCaller, personIdInBody: string | undefined): string {
  if (caller.kind === 'person') {
    // As TOTP enrolment: the person is the token's subject, so naming one is a mistake, never a choice.
    if (personIdInBody !== undefined) throw invalidField('body.person_id', "is for an admin key only; a person JWT registers its own person's passkey");
    return caller.personId;
  }
  if (personIdInBody === undefined) throw invalidField('body.person_id', 'is required with an admin key (the person to register a passkey for)');
  return personIdInBody;
}
