import type { FastifyRequest } from 'fastify';
import { ApiError, invalidField } from '../../errors/api-error.ts';
import { type OwnToken, TokenRejected } from '../../oauth/tokens/reader.ts';
import type { Organization } from '../../store/types.ts';
import type { WebAuthnDeps } from './deps.ts';
import { organizationOfRequest, singleHeader } from './organization-of-request.ts';

/** Who asked to register a passkey: the person themselves, or the organisation's administrator. */
export type RegistrationCaller = { kind: 'person'; personId: string } | { kind: 'admin_key'; keyId: string };

/**
 * Registration is authorised in exactly one of two ways (sending both is refused, so it is never
 * unclear which one counted):
 * - `Service-API-Key`: an admin key of the organisation, for any of its persons (named by
 *   `person_id` in the options body);
 * - `Authorization: Bearer <person JWT>`: a JWT of this service for this organisation whose
 *   subject is one of its persons, as authentication and mint-token issue it: held by the person
 *   (no `client_id`) and not delegated (no `act`). Registration adds a way to log in, so a token
 *   a client holds for the person, or acts with, is not enough. Opaque tokens are not accepted.
 */
export async function registrationCaller(deps: WebAuthnDeps, request: FastifyRequest): Promise<{ org: Organization; caller: RegistrationCaller }> {
  const { org, key, apiKeySent } = await organizationOfRequest(deps.store, request);
  const authorization = singleHeader(request, 'authorization');
  if (apiKeySent && authorization) {
    throw new ApiError('INVALID_HEADER', 'header Authorization: send either Service-API-Key (an admin key) or Authorization (a person JWT), not both');
  }
  if (apiKeySent) {
    if (!key) throw new ApiError('UNAUTHENTICATED', 'header Service-API-Key: is not a valid key of this organisation');
    if (key.kind !== 'admin') throw new ApiError('FORBIDDEN', `header Service-API-Key: an ${key.kind} key may not use this operation (needs admin)`);
    return { org, caller: { kind: 'admin_key', keyId: key.id } };
  }
  if (!authorization) throw new ApiError('UNAUTHENTICATED', 'header Authorization: a person JWT (Bearer) or an admin Service-API-Key is required');
  const match = /^Bearer ([^\s]+)$/i.exec(authorization);
  if (!match) throw new ApiError('UNAUTHENTICATED', 'header Authorization: must be "Bearer <person JWT>"');
  let token: OwnToken;
  try {
    token = await deps.reader.jwt(match[1]!);
  } catch (error) {
    if (error instanceof TokenRejected) throw new ApiError('UNAUTHENTICATED', `header Authorization: the token ${error.message}`);
    throw error;
  }
  if (token.orgId !== org.id) throw new ApiError('UNAUTHENTICATED', 'header Authorization: the token is not of this organisation');
  if (token.clientId !== undefined || token.act !== undefined) {
    throw new ApiError(
      'FORBIDDEN',
      "header Authorization: only the person's own token may register a passkey (this one was issued to a client or is delegated)",
    );
  }
  if (!(await deps.store.getPerson(org.id, token.subject))) {
    throw new ApiError('UNAUTHENTICATED', "header Authorization: the token's subject is not a person of this organisation");
  }
  return { org, caller: { kind: 'person', personId: token.subject } };
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
