import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { LoginRouteDeps } from '../../authn/login-route-deps.ts';
import { canonicalLoginHandle, loginErrors, loginRouteDocs } from '../../authn/login-schemas.ts';
import { issuePersonToken } from '../../authn/person-token.ts';
import { afterPassword } from '../../authn/second-factor.ts';
import { Envelope } from '../../http/envelope.ts';
import { organizationOf } from '../../http/organization-header.ts';
import type { HashWorkPool, PasswordHashPolicy } from './index.ts';
import { passwordMethod } from './login.ts';
import { PasswordLoginBody, PasswordLoginView } from './login-schemas.ts';

export interface PasswordLoginDeps extends LoginRouteDeps {
  pool: HashWorkPool;
  policy: PasswordHashPolicy | undefined;
}

/** POST /authn/password: a person proves who they are and gets a person JWT, or a ticket a second factor completes (design §3, §5). */
export function passwordLoginRoutes({ store, flow, issuer, pool, perSource, policy, now, attemptMetrics }: PasswordLoginDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/authn/password',
      {
        schema: {
          ...loginRouteDocs,
          summary: 'Log in with a password',
          description:
            'A person without a second factor gets the person JWT (amr pwd). A person who holds a TOTP or passkey credential gets `second_factor_required: true` and a ticket instead (since release 11): the ticket and a TOTP code or recovery code (POST /authn/totp), or a passkey (POST /authn/webauthn/options and /verify), give the JWT, with amr pwd, the second factor and mfa.',
          body: PasswordLoginBody,
          response: { 200: Envelope(PasswordLoginView), ...loginErrors },
        },
      },
      async (request) => {
        const org = await organizationOf(request, store);
        const handle = canonicalLoginHandle(request.body.handle);
        const method = passwordMethod(request.body.password, { store, pool, now, ...(policy ? { policy } : {}) });
        // Before the attempt is counted: a refusal here judged nothing, so it counts against no one.
        const leave = perSource.enter(request.ip);
        try {
          const { person } = await flow.authenticate(org, handle, method);
          const next = await afterPassword({ store, now, attemptMetrics }, org, person, handle);
          if (next.kind === 'signed_in') return { result: await issuePersonToken(issuer, org, next.signIn) };
          const { ticket, expiresAt, methods } = next;
          return {
            result: {
              second_factor_required: true as const,
              second_factor_ticket: ticket,
              expires_at: new Date(expiresAt).toISOString(),
              second_factors: methods,
            },
          };
        } finally {
          leave();
        }
      },
    );
  };
}
