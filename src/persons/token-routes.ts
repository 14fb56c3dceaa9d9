import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { apiKeyOperator, operatorFields } from '../audit/admin-events.ts';
import { invalidField, personNotFound } from '../errors/api-error.ts';
import { commonErrors, Envelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { scopeSet } from '../oauth/scope.ts';
import type { TokenIssuer } from '../oauth/tokens/issuer.ts';
import { recordEvent } from '../store/audit/record-event.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import { Minted, MintRequest, PersonParams } from './schemas.ts';

/**
 * POST /persons/{person_id}/mint-token: a person JWT (RFC 9068 access token), for a subject of token exchange.
 * `now` is the app's clock, the one the token's iat comes from, so the audit event agrees with it.
 */
export function personTokenRoutes(store: PersonStore & AuditStore & OrganizationStore, issuer: TokenIssuer, now: () => number): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', requireApiKey(store, ['admin']));
    app.post(
      '/persons/:person_id/mint-token',
      {
        // No body at all means the defaults.
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          tags: ['persons'],
          security: [{ orgId: [], apiKey: [] }],
          summary: 'Mint a person JWT',
          params: PersonParams,
          body: Type.Optional(MintRequest),
          response: { 200: Envelope(Minted), ...commonErrors },
        },
      },
      async (request) => {
        const { org } = tenantOf(request);
        const person = await store.getPerson(org.id, request.params.person_id);
        if (!person) throw personNotFound();
        const body = request.body ?? {};
        if (body.may_act?.sub === person.id) throw invalidField('body.may_act.sub', 'must name another party than the person');
        const lifetimeSeconds = Math.min(body.expires_in ?? org.config.token_lifetime_ceiling, org.config.token_lifetime_ceiling);
        const scope = [...scopeSet(body.scope ?? '')].join(' ');
        // No amr: a minted token proves no sign-in (design §5), so it manages no factors and opens no helpdesk door.
        const token = await issuer.jwt({
          orgId: org.id,
          subject: person.id,
          scope,
          lifetimeSeconds,
          personGeneration: person.generation,
          ...(body.may_act ? { mayAct: body.may_act } : {}),
        });
        // Minting speaks for a person: who did it is worth a record.
        const at = now();
        await recordEvent(store, at, org.id, 'person.token_minted', {
          person_id: person.id,
          expires_in: lifetimeSeconds,
          scope,
          may_act: body.may_act ?? null,
          ...operatorFields(apiKeyOperator(request)),
        });
        return { result: { token, person_id: person.id, expires_in: lifetimeSeconds } };
      },
    );
  };
}
