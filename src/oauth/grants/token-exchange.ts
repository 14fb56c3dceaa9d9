import type { OAuthClient } from '../../store/types.ts';
import { ATTRIBUTE, inSpan } from '../../telemetry/spans.ts';
import { oauthError } from '../errors.ts';
import { scopeSet } from '../scope.ts';
import { actDepth, MAX_ACT_DEPTH } from '../tokens/delegation-claims.ts';
import type { IssueRequest } from '../tokens/issuer.ts';
import type { OwnToken } from '../tokens/reader.ts';
import { TOKEN_TYPE } from '../tokens/token-types.ts';
import { type Actor, readActorEarly, resolveActor, resolveSubject, TOKEN_EXCHANGE } from './exchange-parties.ts';
import { type ExchangeRequest, readExchangeRequest } from './exchange-request.ts';
import { type Grant, organizationConfig } from './grant.ts';

export { TOKEN_EXCHANGE };

/** Delegation narrows and never widens: within the subject's scopes, the client's, and an acting client's. */
function delegatedScope(subject: OwnToken, client: OAuthClient | undefined, actor: Actor, requested: string[] | undefined): string {
  const allowed = [...scopeSet(subject.scope)].filter((s) => (!client || client.scopes.includes(s)) && (!actor.scopes || actor.scopes.includes(s)));
  if (!requested) return allowed.join(' ');
  const wanted = [...new Set(requested)];
  const extra = wanted.filter((s) => !allowed.includes(s));
  if (extra.length > 0) throw oauthError('invalid_scope', `not within what the subject, the client and the actor hold: ${extra.join(' ')}`);
  return wanted.join(' ');
}

/** An opaque subject restricted to audiences or resources passes on no wider restriction. */
function delegatedTargets(subject: OwnToken, request: ExchangeRequest): { audience: string[]; resource: string[] } {
  const parent = subject.record;
  if (!parent || (parent.audience.length === 0 && parent.resource.length === 0)) return { audience: request.audience, resource: request.resource };
  if (request.requestedTokenType === TOKEN_TYPE.jwt) {
    throw oauthError('invalid_target', 'subject_token is restricted to audiences or resources, which JWT output cannot carry; ask for access_token output');
  }
  const narrow = (name: string, wanted: string[], held: string[]) => {
    if (held.length === 0 || wanted.length === 0) return wanted.length === 0 ? held : wanted;
    const extra = wanted.filter((v) => !held.includes(v));
    if (extra.length > 0) throw oauthError('invalid_target', `${name} may only narrow the subject's; not allowed: ${extra.join(' ')}`);
    return wanted;
  };
  return { audience: narrow('audience', request.audience, parent.audience), resource: narrow('resource', request.resource, parent.resource) };
}

/** RFC 8693: a delegated token for the subject, naming the actor in the `act` chain. */
export const tokenExchange: Grant = {
  type: TOKEN_EXCHANGE,
  auditType: 'token.exchange',
  requiresClient: false,
  async handle(context) {
    const { params, client, deps, audit } = context;
    const request = readExchangeRequest(params);
    audit.requestedTokenType = request.requestedTokenType;
    const actorRead = readActorEarly(deps, request.actor);
    const { token: subject, person } = await inSpan('exchange: resolve subject', {}, () =>
      resolveSubject(deps, request.subjectToken, request.subjectTokenType, client),
    );
    audit.orgId = subject.orgId;
    audit.subject = subject.subject;
    if (actDepth(subject.act) >= MAX_ACT_DEPTH)
      throw oauthError('invalid_request', `subject_token's act chain already has ${MAX_ACT_DEPTH} actors, the most this server delegates`);
    const config = await organizationConfig(context, subject.orgId);
    const actor = await inSpan('exchange: resolve actor', {}, () => resolveActor(deps, request.actor, client, subject.orgId, config, actorRead));
    audit.actor = actor.id;
    if (subject.mayAct && subject.mayAct.sub !== actor.id) throw oauthError('invalid_request', "subject_token's may_act does not name this actor");

    const scope = delegatedScope(subject, client, actor, request.scope);
    const targets = delegatedTargets(subject, request);
    const remaining = Math.floor((subject.expiresAt - deps.now()) / 1000);
    const wanted = request.requestedExpiresIn ?? client?.accessTokenDuration ?? config.token_lifetime_ceiling;
    const lifetimeSeconds = Math.min(wanted, config.token_lifetime_ceiling, remaining);
    if (lifetimeSeconds <= 0) throw oauthError('invalid_request', 'subject_token has expired');

    const issue: IssueRequest = {
      orgId: subject.orgId,
      subject: subject.subject,
      clientId: client?.id,
      scope,
      lifetimeSeconds,
      ...targets,
      act: { sub: actor.id, ...(subject.act ? { act: subject.act } : {}) },
      ...(subject.mayAct ? { mayAct: subject.mayAct } : {}),
      // Delegated for a person, the token ends with their generation as their own JWTs do.
      ...(person ? { personGeneration: person.generation } : {}),
      parentHash: subject.record?.hash,
    };
    const jwt = request.requestedTokenType === TOKEN_TYPE.jwt;
    const access_token = await inSpan('exchange: issue', { [ATTRIBUTE.tokenType]: jwt ? 'jwt' : 'opaque' }, () =>
      jwt ? deps.issuer.jwt(issue) : deps.issuer.opaque(issue),
    );
    return {
      access_token,
      issued_token_type: request.requestedTokenType,
      token_type: 'Bearer',
      expires_in: lifetimeSeconds,
      ...(scope ? { scope } : {}),
    };
  },
};
