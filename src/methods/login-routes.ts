import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AttemptMetrics } from '../authn/attempt-metrics.ts';
import type { LoginFlow } from '../authn/login-flow.ts';
import type { LoginsPerSource } from '../authn/logins-per-source.ts';
import { organizationOf } from '../authn/organization-header.ts';
import { issuePersonToken } from '../authn/person-token.ts';
import { afterPassword, completeSignIn, ticketHashOf } from '../authn/second-factor.ts';
import type { CredentialTypeContext } from '../credentials/credential-type.ts';
import { commonErrors, Envelope, ErrorEnvelope } from '../http/envelope.ts';
import type { TokenIssuer } from '../oauth/tokens/issuer.ts';
import type { Store } from '../store/store.ts';
import { canonicalLoginHandle, handleOrTicket, PasswordLoginBody, PasswordLoginView, PersonLoginView, TotpLoginBody } from './login-schemas.ts';
import type { HashWorkPool, PasswordHashPolicy } from './password/index.ts';
import { passwordMethod } from './password/login.ts';
import { totpMethod } from './totp/login.ts';

export interface LoginRouteOptions {
  store: Store;
  flow: LoginFlow;
  issuer: TokenIssuer;
  pool: HashWorkPool;
  perSource: LoginsPerSource;
  context: CredentialTypeContext;
  policy?: PasswordHashPolicy;
  now: () => number;
  attemptMetrics: AttemptMetrics;
}

const tags = ['authentication'];
const security = [{ orgId: [] }];
/** 429 comes from the attempt limiter (or, for passwords, the per-address bound), 503 from a full hashing queue; with Retry-After when waiting helps. */
const errors = { ...commonErrors, 429: ErrorEnvelope };

/** POST /authn/password and /authn/totp: a person proves who they are and gets a person JWT (design §3, §5). */
export function loginRoutes({ store, flow, issuer, pool, perSource, context, policy, now, attemptMetrics }: LoginRouteOptions): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/authn/password',
      {
        schema: {
          tags,
          security,
          summary: 'Log in with a password',
          description:
            'A person without a second factor gets the person JWT (amr pwd). A person who holds a TOTP or passkey credential gets `second_factor_required: true` and a ticket instead (since release 11): the ticket and a TOTP code or recovery code (POST /authn/totp), or a passkey (POST /authn/webauthn/options and /verify), give the JWT, with amr pwd, the second factor and mfa.',
          body: PasswordLoginBody,
          response: { 200: Envelope(PasswordLoginView), ...errors },
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

    app.post(
      '/authn/totp',
      {
        schema: {
          tags,
          security,
          summary: 'Log in with a TOTP code or a recovery code, alone (handle) or as the second factor after a password (second_factor_ticket)',
          description:
            'A recovery code logs in like a TOTP code (amr otp); the audit event names it (method recovery_code). With `second_factor_ticket` in place of `handle`, the code completes a password login: amr pwd, otp and mfa.',
          body: TotpLoginBody,
          response: { 200: Envelope(PersonLoginView), ...errors },
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
