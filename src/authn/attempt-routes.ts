import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { apiKeyOperator } from '../audit/admin-events.ts';
import { personNotFound } from '../errors/api-error.ts';
import { commonErrors, Envelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { AuthnAttemptStore, PersonAttemptRecord } from '../store/authn/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { TransactionalStore } from '../store/store.ts';
import { decideAttempt } from './attempt-policy.ts';
import { resetAttemptsOfPerson } from './attempt-reset.ts';
import { handleCounterSubjects } from './attempt-subject.ts';

const PersonParams = Type.Object({ person_id: Type.String({ minLength: 1, maxLength: 64 }) });
const AttemptView = Type.Object({
  credential_type: Type.String({ description: 'password, totp or public-key' }),
  failures: Type.Integer({
    description:
      "Consecutive failed attempts with one of the handles (or, for public-key, the passkeys' user handle in a discoverable login) and this credential type",
  }),
  last_attempt_at: Type.String({ format: 'date-time' }),
  state: Type.Union([Type.Literal('open'), Type.Literal('delayed'), Type.Literal('locked')], {
    description: 'open: the next attempt may be made now; delayed: after retry_after seconds; locked: only after a reset',
  }),
  retry_after: Type.Union([Type.Integer(), Type.Null()], { description: 'Seconds until the next attempt, when delayed' }),
});

type AttemptRouteStore = AuthnAttemptStore & PersonStore & OrganizationStore & AuditStore & TransactionalStore;

/**
 * GET and DELETE /persons/{person_id}/authn-attempts (admin key): what the attempt limiter
 * holds against the person's handles, and the reset that NIST SP 800-63B expects after a
 * lock (the person proves who they are to the helpdesk; the helpdesk resets).
 */
export function attemptRoutes(store: AttemptRouteStore, now: () => number, hashCode: (code: string) => string): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', requireApiKey(store, ['admin']));
    const tags = ['authentication'];
    const security = [{ orgId: [], apiKey: [] }];

    app.get(
      '/persons/:person_id/authn-attempts',
      {
        schema: {
          tags,
          security,
          summary: "A person's failed-attempt counters",
          description:
            "One counter per handle and credential type that has failed attempts, and one for discoverable passkey logins naming the person's user handle (public-key); the handles themselves are not stored.",
          params: PersonParams,
          response: { 200: Envelope(Type.Array(AttemptView)), ...commonErrors },
        },
      },
      async (request) => {
        const orgId = tenantOf(request).org.id;
        const person = await store.getPerson(orgId, request.params.person_id);
        if (!person) throw personNotFound();
        const records = await store.listAuthnAttemptsOfPerson(orgId, person.id, handleCounterSubjects(orgId, person, hashCode));
        const at = now();
        return { result: records.map((record) => present(record, at)) };
      },
    );

    app.delete(
      '/persons/:person_id/authn-attempts',
      {
        schema: {
          tags,
          security,
          summary: "Reset a person's failed-attempt counters",
          description:
            "Every counter of every handle and credential type of the person starts again, the discoverable passkey login's too; an audit event records who reset it.",
          params: PersonParams,
          response: { 204: Type.Null(), ...commonErrors },
        },
      },
      async (request, reply) => {
        const { org } = tenantOf(request);
        await resetAttemptsOfPerson(store, org.id, request.params.person_id, hashCode, apiKeyOperator(request), now());
        return reply.code(204).send(null);
      },
    );
  };
}

function present(record: PersonAttemptRecord, at: number) {
  const decision = decideAttempt(record, at);
  return {
    credential_type: record.credentialType,
    failures: record.failures,
    last_attempt_at: new Date(record.lastAttemptAt).toISOString(),
    state: decision.kind === 'allowed' ? ('open' as const) : decision.kind === 'wait' ? ('delayed' as const) : ('locked' as const),
    retry_after: decision.kind === 'wait' ? Math.ceil(decision.retryAfterMs / 1000) : null,
  };
}
