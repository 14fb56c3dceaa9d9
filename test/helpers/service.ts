import { loadServiceConfig } from '../../src/config/service-config.ts';
import { newId } from '../../src/crypto/ids.ts';
import { createOrganization } from '../../src/organizations/create-organization.ts';
import { type RunningService, type ServiceOptions, startService } from '../../src/service/service.ts';
import type { Backend } from './backends.ts';

/** The secret test services seal their signing keys with. */
export const TEST_SECRET = 'test-secret-that-is-at-least-32-chars';

export interface TestOrg {
  orgId: string;
  apiKey: string;
  headers: Record<string, string>;
}

export interface Response<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestService {
  service: RunningService;
  url: string;
  /** A new organisation with its first admin key. */
  org(name?: string): Promise<TestOrg>;
  /** A JSON request against the service; the body is parsed when it is JSON. */
  call<T = any>(method: string, path: string, options?: { as?: TestOrg | Record<string, string>; body?: unknown }): Promise<Response<T>>;
  close(): Promise<void>;
}

/** The real service on port 0 over a fresh database of the given backend. */
export async function startTestService(backend: Backend, env: Record<string, string> = {}, options: ServiceOptions = {}): Promise<TestService> {
  const database = await backend.fresh();
  const { config } = loadServiceConfig({
    TESSERA_PORT: '0',
    TESSERA_DATABASE: database.url,
    TESSERA_DEV: '0',
    TESSERA_SECRET: TEST_SECRET,
    TESSERA_LOG_LEVEL: 'silent',
    ...env,
  });
  const service = await startService(config, options);
  return startTestServiceOver({
    ...service,
    async close() {
      await service.close();
      await database.drop();
    },
  });
}

/** A TestService over a running service; its `close` is the caller's (it drops the database too). */
export function startTestServiceOver(service: RunningService): TestService {
  return {
    service,
    url: service.url,
    async org(name = `org-${newId('t')}`) {
      const { org, apiKey } = await createOrganization(service.store, name);
      return { orgId: org.id, apiKey, headers: { 'service-orgid': org.id, 'service-api-key': apiKey } };
    },
    call: (method, path, options) => callService(service.url, method, path, options),
    close: () => service.close(),
  };
}

/** A JSON request against the service at `url`, as TestService.call makes it; the body is parsed when it is JSON. */
export async function callService<T = any>(
  url: string,
  method: string,
  path: string,
  { as, body }: { as?: TestOrg | Record<string, string>; body?: unknown } = {},
): Promise<Response<T>> {
  const headers: Record<string, string> = { ...(as && 'headers' in as ? (as as TestOrg).headers : (as as Record<string, string> | undefined)) };
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(`${url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });
  const text = await response.text();
  const isJson = response.headers.get('content-type')?.includes('json');
  return { status: response.status, headers: response.headers, body: isJson && text ? JSON.parse(text) : text };
}

/** The codes of an error envelope, in order; fails loudly when the body is not one. */
export function errorCodes(body: { errors?: { code: string; httpcode: number }[] }): string[] {
  if (!Array.isArray(body.errors)) throw new Error(`expected an error envelope, got ${JSON.stringify(body)}`);
  return body.errors.map((e) => e.code);
}
