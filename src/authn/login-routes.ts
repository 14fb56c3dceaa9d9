import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HashWorkPool, PasswordHashPolicy } from '../credentials/password/index.ts';
import { commonErrors, Envelope, ErrorEnvelope } from '../http/envelope.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { CredentialStore } from '../store/credentials/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { LoginFlow } from './login-flow.ts';
import { canonicalLoginHandle, PasswordLoginBody, PersonLoginView } from './login-schemas.ts';
import { organizationOf } from './organization-header.ts';
import { passwordMethod } from './password-method.ts';

export interface LoginRouteOptions {
  store: OrganizationStore & PersonStore & CredentialStore & AuditStore;
  flow: LoginFlow;
  pool: HashWorkPool;
  policy?: PasswordHashPolicy;
  now: () => number;
}

const tags = ['authentication'];
const security = [{ orgId: [] }];
/** 429 comes from the attempt limiter, 503 from a full hashing queue; both with Retry-After when waiting helps. */
const responses = { 200: Envelope(PersonLoginView), ...commonErrors, 429: ErrorEnvelope };

/** POST /authn/password: a person proves who they are and gets a person JWT (design §3). */
export function loginRoutes({ store, flow, pool, policy, now }: LoginRouteOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/authn/password',
      { schema: { tags, security, summary: 'Log in with a password', body: PasswordLoginBody, response: responses } },
      async (request) => {
        const org = await organizationOf(request, store);
        const handle = canonicalLoginHandle(request.body.handle);
        const method = passwordMethod(request.body.password, { store, pool, now, ...(policy ? { policy } : {}) });
        return { result: await flow.login(org, handle, method) };
      },
    );
  };
}
