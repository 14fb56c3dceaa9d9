import assert from 'node:assert/strict';
import type { TestOrg, TestService } from '../helpers/service.ts';

export interface ScimTenant {
  org: TestOrg;
  connectionId: string;
  token: string;
  /** A request to `/scim/v2<path>` with the tenant's bearer token. */
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<ScimResponse>;
}

export interface ScimResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** A new organisation with one `scim` connection: a fresh, empty SCIM tenant. */
export async function scimTenant(t: TestService, org?: TestOrg): Promise<ScimTenant> {
  const owner = org ?? (await t.org());
  const created = await t.call('POST', '/organizations/connections', { as: owner, body: { name: `directory-${Math.random()}`, type: 'scim' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { id, scim_token: token } = created.body.result;
  return {
    org: owner,
    connectionId: id,
    token,
    call: (method, path, body, headers = {}) => scimCall(t.url, token, method, path, body, headers),
  };
}

export async function scimCall(
  url: string,
  token: string | undefined,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ScimResponse> {
  const all: Record<string, string> = { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers };
  if (body !== undefined) all['content-type'] ??= 'application/scim+json';
  const response = await fetch(`${url}/scim/v2${path}`, {
    method,
    headers: all,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** The SCIM Error a response must be: schema, status as a string, and the scimType when given. */
export function assertScimError(response: ScimResponse, status: number, scimType?: string): void {
  assert.equal(response.status, status, JSON.stringify(response.body));
  assert.match(response.headers.get('content-type') ?? '', /^application\/scim\+json/);
  assert.deepEqual(response.body.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error']);
  assert.equal(response.body.status, String(status));
  assert.equal(typeof response.body.detail, 'string');
  if (scimType) assert.equal(response.body.scimType, scimType, response.body.detail);
}
