import { InvalidGrant, InvalidScope } from '../errors.ts';
import { TOKEN_TYPE } from '../tokens/token-types.ts';
import { readExchangeRequest } from './exchange-request.ts';
import { resolveActor, resolveSubject } from './exchange-parties.ts';
import { organizationConfig, scopeSet, type Grant } from './grant.ts';

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** RFC 8693: a delegated token for the subject, naming the actor in the `act` chain. */
export const tokenExchange: Grant = {
  type: TOKEN_EXCHANGE,
  auditType: 'token.exchange',
  requiresClient: false,
  async handle(context) {
    const { params, client, deps, audit } = context;
    const request = readExchangeRequest(params);
    audit.requestedTokenType = request.requestedTokenType;
    const subject = await resolveSubject(deps, request.subjectToken, request.subjectTokenType, client);
    audit.orgId = subject.orgId;
    audit.subject = subject.subject;
    const config = await organizationConfig(context, subject.orgId);
    const actor = await resolveActor(deps, request.actorToken, request.actorTokenType, client, subject.orgId, config);
    audit.actor = actor;
    if (subject.mayAct && subject.mayAct.sub !== actor) throw new InvalidGrant('the subject token\'s may_act does not name this actor');

    // Delegation narrows and never widens: within the subject's scopes and the client's.
    const allowed = [...scopeSet(subject.scope)].filter((s) => !client || client.scopes.includes(s));
    if (request.scope) {
      const extra = request.scope.filter((s) => !allowed.includes(s));
      if (extra.length > 0) throw new InvalidScope(`scope may only narrow the subject's; not allowed: ${extra.join(' ')}`);
    }
    const scope = (request.scope ?? allowed).join(' ');

    const remaining = Math.floor((subject.expiresAt - deps.now()) / 1000);
    const wanted = request.requestedExpiresIn ?? client?.accessTokenDuration ?? config.token_lifetime_ceiling;
    const lifetimeSeconds = Math.min(wanted, config.token_lifetime_ceiling, remaining);
    if (lifetimeSeconds <= 0) throw new InvalidGrant('subject_token has expired');

    const grant = {
      orgId: subject.orgId, subject: subject.subject, clientId: client?.id, scope, lifetimeSeconds,
      act: { sub: actor, ...(subject.act ? { act: subject.act } : {}) },
      audience: request.audience, resource: request.resource, parentHash: subject.record?.hash,
    };
    const jwt = request.requestedTokenType === TOKEN_TYPE.jwt;
    const access_token = jwt ? await deps.issuer.jwt(grant) : await deps.issuer.opaque(grant);
    return {
      access_token, issued_token_type: request.requestedTokenType, token_type: 'Bearer', expires_in: lifetimeSeconds, ...(scope ? { scope } : {}),
    };
  },
};
