import type { ApiKey, AuditEvent, OAuthClient, OpaqueToken, Organization, Person, SigningKey } from './types.ts';

/** Row shapes as either driver returns them: JSON may come parsed (jsonb) or as text, booleans as 0/1. */
type Json = string | object;

export interface OrganizationRow { id: string; name: string; config: Json; created_at: number }
export interface ApiKeyRow { id: string; org_id: string; name: string; kind: string; secret_hash: string; created_at: number }
export interface PersonRow { id: string; org_id: string; handles: Json; roles: Json; console: number | boolean; created_at: number }
export interface ClientRow {
  id: string; org_id: string; name: string; scopes: Json; grant_types: Json;
  access_token_duration: number; access_token_format: string; secret_hash: string; created_at: number;
}

function json<T>(value: Json): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function toOrganization(row: OrganizationRow): Organization {
  return { id: row.id, name: row.name, config: json(row.config), createdAt: Number(row.created_at) };
}

export function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id, orgId: row.org_id, name: row.name, kind: row.kind as ApiKey['kind'],
    secretHash: row.secret_hash, createdAt: Number(row.created_at),
  };
}

export function toPerson(row: PersonRow): Person {
  return {
    id: row.id, orgId: row.org_id, handles: json(row.handles), roles: json(row.roles),
    console: Boolean(row.console), createdAt: Number(row.created_at),
  };
}

export function toClient(row: ClientRow): OAuthClient {
  return {
    id: row.id, orgId: row.org_id, name: row.name, scopes: json(row.scopes), grantTypes: json(row.grant_types),
    accessTokenDuration: Number(row.access_token_duration),
    accessTokenFormat: row.access_token_format as OAuthClient['accessTokenFormat'],
    secretHash: row.secret_hash, createdAt: Number(row.created_at),
  };
}

export interface SigningKeyRow {
  kid: string; alg: string; public_jwk: Json; sealed_private_jwk: string; status: string; created_at: number; retired_at: number | null;
}
export interface TokenRow {
  hash: string; org_id: string; client_id: string | null; subject: string; scope: string; audience: Json; resource: Json;
  act: Json | null; may_act: Json | null; parent_hash: string | null; issued_at: number; expires_at: number; revoked_at: number | null;
}
export interface AuditEventRow { id: string; org_id: string; type: string; occurred_at: number; data: Json }

const optionalTime = (value: number | null) => (value === null ? null : Number(value));

export function toSigningKey(row: SigningKeyRow): SigningKey {
  return {
    kid: row.kid, alg: row.alg as SigningKey['alg'], publicJwk: json(row.public_jwk), sealedPrivateJwk: row.sealed_private_jwk,
    status: row.status as SigningKey['status'], createdAt: Number(row.created_at), retiredAt: optionalTime(row.retired_at),
  };
}

export function toOpaqueToken(row: TokenRow): OpaqueToken {
  return {
    hash: row.hash, orgId: row.org_id, clientId: row.client_id, subject: row.subject, scope: row.scope,
    audience: json(row.audience), resource: json(row.resource), act: row.act === null ? null : json(row.act),
    mayAct: row.may_act === null || row.may_act === undefined ? null : json(row.may_act),
    parentHash: row.parent_hash, issuedAt: Number(row.issued_at), expiresAt: Number(row.expires_at), revokedAt: optionalTime(row.revoked_at),
  };
}

export function toAuditEvent(row: AuditEventRow): AuditEvent {
  return { id: row.id, orgId: row.org_id, type: row.type, occurredAt: Number(row.occurred_at), data: json(row.data) };
}
