import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { LoginRouteDeps } from '../../authn/login-route-deps.ts';
import { canonicalLoginHandle, handleOrTicket, loginErrors, loginRouteDocs, PersonLoginView } from '../../authn/login-schemas.ts';
import { issuePersonToken } from '../../authn/person-token.ts';
import { completeSignIn, ticketHashOf } from '../../authn/second-factor.ts';
import type { CredentialTypeContext } from '../../credentials/credential-type.ts';
import { Envelope } from '../../http/envelope.ts';
import { organizationOf } from '../../http/organization-header.ts';
import { totpMethod } from './login.ts';
import { TotpLoginBody } from './login-schemas.ts';

export interface TotpLoginDeps extends LoginRouteDeps {
  context: CredentialTypeContext;
}

/** POST /authn/totp: a TOTP code or a recovery code, alone or as the second factor after a password (design §3, §5). */
export function totpLoginRoutes({ store, flow, issuer, perSource, context, now, attemptMetrics }: TotpLoginDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/authn/totp',
      {
        schema: {
          ...loginRouteDocs,
          summary: 'Log in with a TOTP code or a recovery code, alone (handle) or as the second factor after a password (second_factor_ticket)',
          description:
            'A recovery code logs in like a TOTP code (amr otp); the audit event names it (method recovery_code). With `second_factor_ticket` in place of `handle`, the code completes a password login: amr pwd, otp and mfa.',
          body: TotpLoginBody,
          response: { 200: Envelope(PersonLoginView), ...loginErrors },
        },
      },
      async (request) => {
        const org = await organizationOf(request, store);
        const { handle, second_factor_ticket: ticket, code } = request.body;
        handleOrTicket(request.body);
        const method = totpMethod(code, { store, context, now });
        if (handle !== undefined) {
          const { person, amr } = await flow.authenticate(org, canonicalLoginHandle(handle), method);
          return { result: await issuePersonToken(issuer, org, { personId: person.id, amr, authTime: now(), generation: person.generation }) };
        }
        const leave = perSource.enter(request.ip);
        try {
          const signIn = await completeSignIn({ store, now, attemptMetrics }, org, ticketHashOf(ticket!), 'totp', async (open) => {
            const { person, amr } = await flow.authenticate(org, open.handle, method);
            return { personId: person.id, amr };
          });
          return { result: await issuePersonToken(issuer, org, signIn) };
        } finally {
          leave();
        }
      },
    );
  };
}
