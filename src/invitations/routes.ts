import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { apiKeyOperator } from '../audit/admin-events.ts';
import { commonErrors, Envelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { PersonParams } from '../persons/schemas.ts';
import { type InvitationDeps, invitePerson } from './invite.ts';
import { InvitationView, NewInvitation } from './schemas.ts';

/** POST /persons/{person_id}/invitations (admin key): the link that gives a person a login (design §9). */
export function invitationRoutes(deps: InvitationDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', requireApiKey(deps.store, ['admin']));
    app.post(
      '/persons/:person_id/invitations',
      {
        // No body at all means the defaults.
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          tags: ['persons'],
          security: [{ orgId: [], apiKey: [] }],
          summary: 'Invite a person to set their password (and second factor), or reset their sign-in',
          description:
            'A one-time console link, revoking any earlier one of the person. For a person who holds credentials it is a reset: redeeming it replaces them and ends their tokens and console sessions. With `send`, it is also emailed.',
          params: PersonParams,
          body: Type.Optional(NewInvitation),
          response: { 201: Envelope(InvitationView), ...commonErrors },
        },
      },
      async (request, reply) => {
        const { org } = tenantOf(request);
        const { expires_in, send } = request.body ?? {};
        const made = await invitePerson(deps, org, request.params.person_id, { expiresIn: expires_in, send }, apiKeyOperator(request));
        const result = { url: made.url, expires_at: new Date(made.expiresAt).toISOString(), reset: made.reset, emailed_to: made.emailedTo };
        return reply.code(201).send({ result });
      },
    );
  };
}
