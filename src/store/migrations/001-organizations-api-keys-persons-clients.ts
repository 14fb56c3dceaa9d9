import type { MigrationSource } from './dialect.ts';

export const organizationsApiKeysPersonsClients: MigrationSource = {
  version: 1,
  name: 'organizations, api keys, persons, oauth2 clients',
  statements: (t) => [
    `CREATE TABLE organizations (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        config ${t.json} NOT NULL,
        created_at ${t.time} NOT NULL)`,
    `CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        secret_hash TEXT NOT NULL UNIQUE,
        created_at ${t.time} NOT NULL,
        UNIQUE (org_id, name))`,
    `CREATE TABLE persons (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        handles ${t.json} NOT NULL,
        roles ${t.json} NOT NULL,
        console ${t.bool} NOT NULL,
        created_at ${t.time} NOT NULL)`,
    'CREATE INDEX persons_by_org ON persons (org_id, id)',
    // The handles also live on the person row for reading; this table enforces uniqueness
    // per organisation and serves look-ups by handle.
    `CREATE TABLE person_handles (
        org_id TEXT NOT NULL,
        type TEXT NOT NULL,
        value TEXT NOT NULL,
        person_id TEXT NOT NULL REFERENCES persons(id) ON DELETE CASCADE,
        PRIMARY KEY (org_id, type, value))`,
    'CREATE INDEX person_handles_by_person ON person_handles (person_id)',
    `CREATE TABLE oauth_clients (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        scopes ${t.json} NOT NULL,
        grant_types ${t.json} NOT NULL,
        access_token_duration INTEGER NOT NULL,
        access_token_format TEXT NOT NULL,
        secret_hash TEXT NOT NULL UNIQUE,
        created_at ${t.time} NOT NULL)`,
    'CREATE INDEX oauth_clients_by_org ON oauth_clients (org_id, id)',
  ],
};
