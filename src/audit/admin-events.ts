import { userInfo } from 'node:os';
import type { FastifyRequest } from 'fastify';
import { tenantOf } from '../http/org-auth.ts';
import { recordEvent } from '../store/audit/record-event.ts';
import type { AuditStore } from '../store/audit/store.ts';

/**
 * Who made an administrative change (design §6): an API key, a person signed in to the
 * console, or the command line, named by the operating-system user who ran it.
 */
export type Operator = { kind: 'api_key'; apiKeyId: string } | { kind: 'console'; personId: string } | { kind: 'cli'; osUser: string };

/** The operator of a request the API authenticated with an organisation's API key. */
export function apiKeyOperator(request: FastifyRequest): Operator {
  return { kind: 'api_key', apiKeyId: tenantOf(request).key.id };
}

/** The operator of a command run now: `cli` and the operating-system user running it. */
export function cliOperator(): Operator {
  return { kind: 'cli', osUser: userInfo().username };
}

/** The operator as an event's data says it: `operator` and the one id that names them. */
export function operatorFields(operator: Operator): Record<string, string> {
  switch (operator.kind) {
    case 'api_key':
      return { operator: 'api_key', api_key_id: operator.apiKeyId };
    case 'console':
      return { operator: 'console', console_person_id: operator.personId };
    case 'cli':
      return { operator: 'cli', os_user: operator.osUser };
  }
}

/**
 * The audit event types of administrative changes, in one place (docs/api.md#audit-events).
 * Credential and connection events keep their older homes (credentials/, connections/audit.ts)
 * and carry the operator too.
 */
export const adminEventTypes = [
  'organization.created',
  'organization.config_changed',
  'person.created',
  'person.access_changed',
  'person.deleted',
  'person.signed_out_everywhere',
  'person.invited',
  'person.invitation_revoked',
  'api_key.created',
  'api_key.rotated',
  'api_key.revoked',
  'client.created',
  'client.deleted',
  'client.secret_rotated',
  'client.authentication_changed',
] as const;
export type AdminEventType = (typeof adminEventTypes)[number];

/**
 * Records one administrative change, naming its operator. Callers pass ids, names, roles and
 * field names: never a secret, a token, a code or a hash. Call it with the store of the
 * change's own transaction (Store.inTransaction), so the change and its event commit together.
 */
export function recordAdminEvent(
  store: AuditStore,
  at: number,
  orgId: string,
  operator: Operator,
  type: AdminEventType,
  data: Record<string, unknown>,
): Promise<void> {
  return recordEvent(store, at, orgId, type, { ...data, ...operatorFields(operator) });
}
