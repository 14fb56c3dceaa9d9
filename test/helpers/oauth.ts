import type { KeyObject } from 'node:crypto';
import { createServer } from 'node:net';
import { SignJWT } from 'jose';
import { KeyRing } from '../../src/oauth/keys/key-ring.ts';
import { TEST_SECRET, type TestOrg, type TestService } from './service.ts';

export const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const JWT_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export interface ClientCredentials {
  id: string;
  secret: string;
}

export interface OAuthResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** A form-encoded POST to an OAuth endpoint, with HTTP Basic when a client is given. */
export async function oauthPost(
  t: TestService,
  path: string,
  params: Record<string, string | string[]>,
  client?: ClientCredentials,
  headers: Record<string, string> = {},
): Promise<OAuthResponse> {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) for (const v of [value].flat()) form.append(name, v);
  const auth = client
    ? { authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64')}` }
    : {};
  const response = await fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth, ...headers },
    body: form.toString(),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

export function token(t: TestService, params: Record<string, string | string[]>, client?: ClientCredentials): Promise<OAuthResponse> {
  return oauthPost(t, '/oauth2/tokens', params, client);
}

export async function registerClient(t: TestService, org: TestOrg, body: Record<string, unknown> = {}): Promise<ClientCredentials> {
  const response = await t.call('POST', '/oauth2/clients', {
    as: org,
    body: { client_name: 'gateway', grant_types: ['client_credentials', EXCHANGE], scopes: ['orders:read', 'orders:write'], ...body },
  });
  if (response.status !== 201) throw new Error(`client registration failed: ${JSON.stringify(response.body)}`);
  return { id: response.body.result.client_id, secret: response.body.result.client_secret };
}

export async function createPerson(t: TestService, org: TestOrg, email = `p${Math.random().toString(36).slice(2)}@example.com`): Promise<string> {
  return (await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: email }] } })).body.result.id;
}

export async function mintPersonToken(t: TestService, org: TestOrg, personId: string, body: Record<string, unknown> = {}): Promise<string> {
  const response = await t.call('POST', `/persons/${personId}/mint-token`, { as: org, body });
  if (response.status !== 200) throw new Error(`mint failed: ${JSON.stringify(response.body)}`);
  return response.body.result.token;
}

export async function clientToken(t: TestService, client: ClientCredentials, scope?: string): Promise<string> {
  const response = await token(t, { grant_type: 'client_credentials', ...(scope ? { scope } : {}) }, client);
  if (response.status !== 200) throw new Error(`client_credentials failed: ${JSON.stringify(response.body)}`);
  return response.body.access_token;
}

/** The payload of a compact JWS, unverified: for asserting what a token says. */
export function claims(jwt: string): any {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
}

/** The running service's own signing key, read from its store as another replica would. */
export function serviceSigningKey(t: TestService): Promise<{ kid: string; privateKey: KeyObject }> {
  return new KeyRing(t.service.store, TEST_SECRET).signingKey();
}

/**
 * A JWT signed with the service's real key that is a valid token of `subject` in `orgId`
 * unless `claims` or `header` say otherwise: so a refusal is about that one claim. A claim
 * set to undefined is left out.
 */
export async function forgeServiceJwt(
  t: TestService,
  key: { kid: string; privateKey: KeyObject },
  base: { orgId: string; subject: string },
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const issuer = t.service.issuer;
  return new SignJWT({ iss: issuer, aud: issuer, sub: base.subject, oid: base.orgId, iat: now, exp: now + 600, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt', ...header } as { alg: string })
    .sign(key.privateKey);
}

/** Introspection as a client (HTTP Basic) or with API key headers (`org.headers`). */
export function introspect(t: TestService, value: string, as: ClientCredentials | TestOrg | Record<string, string>): Promise<OAuthResponse> {
  if ('secret' in as && 'id' in as) return oauthPost(t, '/oauth2/tokens/introspect', { token: value }, as as ClientCredentials);
  const headers = 'headers' in as ? (as as TestOrg).headers : (as as Record<string, string>);
  return oauthPost(t, '/oauth2/tokens/introspect', { token: value }, undefined, headers);
}

/** A URL on 127.0.0.1 where nothing listens: a port just bound and released. */
export async function closedPortUrl(path = '/bundle'): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}${path}`;
}

/** The client_credentials audit events of one client in `org`, as [result, error] pairs, oldest first. */
export async function clientCredentialsOutcomes(t: TestService, org: TestOrg, clientId: string): Promise<[string, string | undefined][]> {
  const events = (await t.call('GET', '/audit/events?type=token.client_credentials&limit=100', { as: org })).body.result as {
    data: { client_id: string; result: string; error?: string };
  }[];
  return events.filter((event) => event.data.client_id === clientId).map((event) => [event.data.result, event.data.error]);
}
