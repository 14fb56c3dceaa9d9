import { createHash } from 'node:crypto';
import { createLocalJWKSet, type JWK, type JWTHeaderParameters, type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import type { ClientStore, OAuthClient } from '../store/clients/store.ts';
import type { OrganizationConfig } from '../store/organizations/store.ts';
import { claimedAssertion } from './claimed-assertion.ts';
import { type ClientKeySets, ClientKeysUnavailable, type KeySet, REFETCH_COOLDOWN_MS } from './client-key-sets.ts';
import { OAuthError, oauthError } from './errors.ts';
import type { OAuthParams } from './form.ts';

/** The signature algorithms a client assertion may use (design §4); registration takes keys of these only. */
export const ASSERTION_ALGORITHMS = ['ES256', 'EdDSA', 'RS256', 'PS256'] as const;

/** RFC 7523 §2.2's client_assertion_type. */
export const JWT_BEARER_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Design §4: an assertion lives at most five minutes (a longer one is a replayable credential). */
const MAX_LIFETIME_S = 300;
const CLOCK_SKEW_S = 60;
const MAX_JTI_LENGTH = 256;
/** The typ values of a client assertion (draft-ietf-oauth-rfc7523bis explicit typing), lower-cased; none given reads as JWT. */
const EXPLICIT_TYPES = new Set(['jwt', 'client-authentication+jwt', 'application/client-authentication+jwt']);

/** What an assertion is checked against: the issuer identifier it must name as `aud`, the clock, the keys behind jwks_uris. */
export interface AssertionContext {
  issuer: () => string;
  now: () => number;
  clientKeys: ClientKeySets;
}

/** Key sets already imported, by client and keys: importing a JWK costs more than verifying with it. */
const keySets = new Map<string, KeySet>();
const MAX_KEY_SETS = 1_000;

function inlineKeySet(clientId: string, jwks: { keys: JWK[] }): KeySet {
  const key = `${clientId} ${JSON.stringify(jwks)}`;
  let set = keySets.get(key);
  if (!set) {
    // Oldest first out: a client whose keys changed leaves its old entry to age away.
    if (keySets.size >= MAX_KEY_SETS) keySets.delete(keySets.keys().next().value!);
    const local: KeySet = createLocalJWKSet(jwks);
    // One key registered without a kid is the key, whatever kid the assertion names (a signer
    // configured with a key id, as the gateway's oauth_client_key_id, need not match a kid never given).
    const [only] = jwks.keys;
    set = jwks.keys.length === 1 && only!.kid === undefined ? (header, token) => local({ ...header, kid: undefined }, token) : local;
    keySets.set(key, set);
  }
  return set;
}

/** A client the assertion authenticated, with its organisation's configuration (client-auth.ts's AuthenticatedClient). */
interface AssertedClient {
  client: OAuthClient;
  config: OrganizationConfig;
}

/** The refusal of an assertion of a registered client: invalid_client, audited in its organisation. */
function refused(found: AssertedClient | undefined, description: string) {
  return oauthError('invalid_client', description, { attemptedClient: found && { id: found.client.id, orgId: found.client.orgId } });
}

/** The keys at the client's jwks_uri; when they cannot be had at all, the client is told to come back. */
async function publishedKeySet(context: AssertionContext, found: AssertedClient, options: { unknownKid?: boolean }): Promise<KeySet> {
  try {
    return await context.clientKeys.keySet(found.client.id, found.client.jwksUri!, options);
  } catch (error) {
    if (!(error instanceof ClientKeysUnavailable)) throw error;
    throw oauthError('temporarily_unavailable', "the client's keys could not be fetched from its jwks_uri; try again later", {
      retryAfterSeconds: REFETCH_COOLDOWN_MS / 1000,
      attemptedClient: { id: found.client.id, orgId: found.client.orgId },
    });
  }
}

/** jose's refusal, told apart for whoever debugs the client (never quoting the assertion). */
function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'client_assertion has expired';
  if (error instanceof joseErrors.JWKSNoMatchingKey) return "client_assertion's kid and alg name no key the client registered";
  if (error instanceof joseErrors.JWKSMultipleMatchingKeys)
    return "client_assertion names no kid, and more than one of the client's keys fits its alg: name the key by kid";
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return "client_assertion's signature does not verify with the client's keys";
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return `client_assertion's alg must be one of ${ASSERTION_ALGORITHMS.join(', ')}`;
  if (error instanceof joseErrors.JWTClaimValidationFailed)
    return `client_assertion's ${error.claim} claim ${error.reason === 'missing' ? 'is missing' : 'is not accepted'}`;
  return 'client_assertion is not a valid signed JWT';
}

/**
 * private_key_jwt (RFC 7523 §2.2 with RFC 7521 §4.2, design §4): the client named by the
 * assertion's `sub`, which must be registered for it; `iss` and `sub` its id; `aud` the issuer
 * identifier as one string (draft-ietf-oauth-rfc7523bis: the token endpoint's URL, or an array,
 * is refused); `exp` at most five minutes ahead; the `jti` spent once across every replica.
 */
export async function authenticateByAssertion(
  store: Pick<ClientStore, 'findClientWithConfig' | 'spendClientAssertion'>,
  params: OAuthParams,
  context: AssertionContext,
): Promise<AssertedClient> {
  const { assertion, sub: id } = claimedAssertion(params);
  if (typeof id !== 'string' || id.length > 64 || id.includes('\u0000')) throw oauthError('invalid_client', "client_assertion's sub must be the client id");
  if (params.has('client_id') && params.get('client_id') !== id) throw oauthError('invalid_client', "client_id differs from client_assertion's sub");
  const found = await store.findClientWithConfig(id);
  if (!found) throw oauthError('invalid_client', 'client authentication failed');
  const { jwks, jwksUri } = found.client;
  if (found.client.authMethod !== 'private_key_jwt' || !(jwks || jwksUri))
    throw refused(found, `the client is registered for ${found.client.authMethod}, not private_key_jwt`);
  const now = context.now();
  const verify = (keys: KeySet) =>
    jwtVerify(assertion, keys, {
      algorithms: [...ASSERTION_ALGORITHMS],
      issuer: id,
      subject: id,
      audience: context.issuer(),
      requiredClaims: ['exp', 'jti'],
      clockTolerance: CLOCK_SKEW_S,
      currentDate: new Date(now),
    });
  let payload: JWTPayload;
  let header: JWTHeaderParameters;
  try {
    const keys = jwks ? inlineKeySet(id, jwks) : await publishedKeySet(context, found, {});
    try {
      ({ payload, protectedHeader: header } = await verify(keys));
    } catch (error) {
      // A kid the cached set lacks may be a rotation the client has published since.
      if (!jwksUri || !(error instanceof joseErrors.JWKSNoMatchingKey)) throw error;
      const fresher = await publishedKeySet(context, found, { unknownKid: true });
      if (fresher === keys) throw error;
      ({ payload, protectedHeader: header } = await verify(fresher));
    }
  } catch (error) {
    if (error instanceof OAuthError) throw error;
    throw refused(found, describe(error));
  }
  if (typeof payload.aud !== 'string') throw refused(found, "client_assertion's aud must be the issuer identifier alone, as a string");
  if (!EXPLICIT_TYPES.has(String(header.typ ?? 'JWT').toLowerCase()))
    throw refused(found, "client_assertion's typ must be JWT or client-authentication+jwt when given (a token of another kind is no client assertion)");
  if (payload.exp! * 1000 - now > MAX_LIFETIME_S * 1000) throw refused(found, `client_assertion's exp must be at most ${MAX_LIFETIME_S / 60} minutes ahead`);
  if (payload.iat !== undefined && payload.iat * 1000 - now > CLOCK_SKEW_S * 1000) throw refused(found, "client_assertion's iat must not be in the future");
  if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > MAX_JTI_LENGTH)
    throw refused(found, `client_assertion's jti must be a string of 1 to ${MAX_JTI_LENGTH} characters`);
  const jtiHash = createHash('sha256').update(payload.jti).digest('base64url');
  // Spent until the last moment jose would still accept it (exp plus the skew allowed), in whole
  // milliseconds: a replay within the skew must find the jti spent, and a fractional exp is legal.
  const acceptedUntil = Math.ceil((payload.exp! + CLOCK_SKEW_S) * 1000);
  if (!(await store.spendClientAssertion(id, jtiHash, acceptedUntil, now))) throw refused(found, 'client_assertion has been used already (its jti)');
  return found;
}
