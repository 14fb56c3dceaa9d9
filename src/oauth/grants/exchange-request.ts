import { oauthError } from '../errors.ts';
import type { OAuthParams } from '../form.ts';
import { isScopeToken, splitScope } from '../scope.ts';
import { TOKEN_TYPE, TOKEN_TYPE_URIS, type TokenTypeUri } from '../tokens/token-types.ts';

const ACCEPTED_TYPES: readonly string[] = TOKEN_TYPE_URIS;
/** Ten digits are more than any lifetime; longer values are nonsense, not a request to clamp. */
const EXPIRES_IN = /^[1-9][0-9]{0,9}$/;

/** An actor token and the type it is declared as: the request carries both or neither. */
export interface ActorTokenParameter {
  token: string;
  type: TokenTypeUri;
}

export interface ExchangeRequest {
  subjectToken: string;
  subjectTokenType: TokenTypeUri;
  actor: ActorTokenParameter | undefined;
  requestedTokenType: TokenTypeUri;
  scope: string[] | undefined;
  audience: string[];
  resource: string[];
  requestedExpiresIn: number | undefined;
}

function tokenType(params: OAuthParams, name: string): TokenTypeUri | undefined {
  const value = params.get(name);
  if (value !== undefined && !ACCEPTED_TYPES.includes(value)) throw oauthError('invalid_request', `${name} must be ${ACCEPTED_TYPES.join(' or ')}`);
  return value as TokenTypeUri | undefined;
}

/** RFC 8693 §2.1 parameters, with the design's rules on what JWT output may carry. */
export function readExchangeRequest(params: OAuthParams): ExchangeRequest {
  const subjectToken = params.require('subject_token');
  const subjectTokenType = tokenType(params, 'subject_token_type');
  if (!subjectTokenType) throw oauthError('invalid_request', 'parameter subject_token_type is required');
  const actorToken = params.get('actor_token');
  const actorTokenType = tokenType(params, 'actor_token_type');
  let actor: ActorTokenParameter | undefined;
  if (actorToken !== undefined) {
    if (!actorTokenType) throw oauthError('invalid_request', 'actor_token_type is required with actor_token');
    actor = { token: actorToken, type: actorTokenType };
  } else if (actorTokenType) {
    throw oauthError('invalid_request', 'actor_token_type was sent without actor_token');
  }
  const requestedTokenType = tokenType(params, 'requested_token_type') ?? TOKEN_TYPE.accessToken;

  const rawScope = params.get('scope');
  const scope = rawScope === undefined ? undefined : splitScope(rawScope);
  if (scope?.some((s) => !isScopeToken(s))) throw oauthError('invalid_request', 'scope is not a space-delimited list of scope tokens');
  const audience = params.all('audience');
  const resource = params.all('resource');
  for (const uri of resource) {
    // RFC 8707 §2: an absolute URI without a fragment.
    if (!URL.parse(uri) || uri.includes('#'))
      throw oauthError('invalid_target', `resource ${JSON.stringify(uri.slice(0, 200))} must be an absolute URI without a fragment`);
  }
  if (requestedTokenType === TOKEN_TYPE.jwt) {
    const opaqueOnly = [scope && 'scope', audience.length > 0 && 'audience', resource.length > 0 && 'resource'].filter(Boolean);
    if (opaqueOnly.length > 0) throw oauthError('invalid_request', `${opaqueOnly.join(', ')}: only for access_token output, not for requested_token_type jwt`);
  }

  const rawExpiresIn = params.get('requested_expires_in');
  if (rawExpiresIn !== undefined && !EXPIRES_IN.test(rawExpiresIn)) {
    throw oauthError('invalid_request', 'requested_expires_in must be a positive whole number of seconds');
  }
  return {
    subjectToken,
    subjectTokenType,
    actor,
    requestedTokenType,
    scope,
    audience,
    resource,
    requestedExpiresIn: rawExpiresIn === undefined ? undefined : Number(rawExpiresIn),
  };
}
