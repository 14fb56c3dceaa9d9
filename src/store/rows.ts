import type { ApiKey, OAuthClient, Organization, Person } from './types.ts';

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
