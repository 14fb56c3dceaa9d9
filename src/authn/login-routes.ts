import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { CredentialTypeContext } from '../credentials/credential-type.ts';
import type { HashWorkPool, PasswordHashPolicy } from '../credentials/password/index.ts';
import { commonErrors, Envelope, ErrorEnvelope } from '../http/envelope.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { CredentialStore } from '../store/credentials/store.ts';
import type { OrganizationStore } from '../store/organizations/store.ts';
import type { PersonStore } from '../store/persons/store.ts';
import type { LoginFlow } from './login-flow.ts';
import { canonicalLoginHandle, PasswordLoginBody, PersonLoginView, TotpLoginBody } from './login-schemas.ts';
import type { LoginsPerSource } from './logins-per-source.ts';
import { organizationOf } from './organization-header.ts';
import { passwordMethod } from './password-method.ts';
import { totpMethod } from './totp-method.ts';

export interface LoginRouteOptions {
  store: OrganizationStore & PersonStore & CredentialStore & AuditStore;
  flow: LoginFlow;
  pool: HashWorkPool;
  perSource: LoginsPerSource;
  context: CredentialTypeContext;
  policy?: PasswordHashPolicy;
  now: () => number;
}

const tags = ['authentication'];
const security = [{ orgId: [] }];
/** 429 comes from the attempt limiter (or, for passwords, the per-address bound), 503 from a full hashing queue; with Retry-After when waiting helps. */
const responses = { 200: Envelope(PersonLoginView), ...commonErrors, 429: ErrorEnvelope };

/** POST /authn/password and /authn/totp: a person proves who they are and gets a person JWT (design §3). */
export function loginRoutes({ store, flow, pool, perSource, context, policy, now }: LoginRouteOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/authn/password',
      { schema: { tags, security, summary: 'Log in with a password', body: PasswordLoginBody, response: responses } },
      async (request) => {
        const org = await organizationOf(request, store);
        const handle = canonicalLoginHandle(request.body.handle);
        const method = passwordMethod(request.body.password, { store, pool, now, ...(policy ? { policy } : {}) });
        // Before the attempt is counted: a refusal here judged nothing, so it counts against no one.
        const leave = perSource.enter(request.ip);
        try {
          return { result: await flow.login(org, handle, method) };
        } finally {
          leave();
        }
      },
    );

    app.post(
      '/authn/totp',
      {
        schema: {
          tags,
          security,
          summary: 'Log in with a TOTP code or a recovery code',
          description: 'A recovery code logs in like a TOTP code (amr otp); the audit event names it (method recovery_code).',
          body: TotpLoginBody,
          response: responses,
        },
      },
      async (request) => {
        const org = await organizationOf(request, store);
        const handle = canonicalLoginHandle(request.body.handle);
        return { result: await flow.login(org, handle, totpMethod(request.body.code, { store, context, now })) };
      },
    );
  };
}
