import type { FastifyInstance, FastifyReply } from 'fastify';
import { passwordMethod } from '../../authn/password-method.ts';
import { totpMethod } from '../../authn/totp-method.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Handle } from '../../store/types.ts';
import { consoleRequest, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field } from '../form-body.ts';
import { noticeFrom } from '../notice.ts';
import { organizationNamed } from './organization.ts';
import { codePage, signInPage } from './pages.ts';
import { passkeySignInRoutes } from './passkey.ts';
import { consolePersonOf, emailHandle, SIGNED_IN_HOME } from './person.ts';

const notices: Record<string, string> = {
  'signed-out': 'You are signed out.',
  'signed-out-everywhere': 'You are signed out on every device.',
  expired: 'Your session ended; sign in again.',
};

/** Failures a person can correct on the form itself; anything else is an error page. */
function formErrorOf(error: unknown): { status: number; message: string } | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === 'UNAUTHENTICATED') return { status: 401, message: 'The email address and the password (or code) do not match.' };
  if (['INVALID_FIELD', 'FORBIDDEN', 'TOO_MANY_ATTEMPTS', 'TOO_MANY_LOGINS_IN_FLIGHT', 'PASSWORD_CHECKS_BUSY'].includes(error.code)) {
    return { status: error.status, message: error.message };
  }
  return undefined;
}

export function signInRoutes(deps: ConsoleDeps) {
  const { store, sessions, logins } = deps;
  return async (app: FastifyInstance) => {
    app.get('/console/sign-in', async (request, reply) => {
      const ctx = consoleRequest(request);
      if (ctx.signedIn) return seeOther(reply, SIGNED_IN_HOME);
      const query = request.query as Record<string, unknown>;
      const org = typeof query.org === 'string' ? query.org.slice(0, 100) : '';
      const notice = noticeFrom(notices, query);
      return signInPage(reply, ctx, { organization: org, email: '', notice });
    });

    app.post('/console/sign-in', async (request, reply) => {
      const ctx = consoleRequest(request);
      const form = { organization: field(request.body, 'organization'), email: field(request.body, 'email') };
      try {
        const org = await organizationNamed(store, form.organization);
        const handle = emailHandle(form.email);
        const password = field(request.body, 'password');
        if (password === '') throw new ApiError('INVALID_FIELD', 'password: is required to sign in with a password (or use a passkey)');
        const method = passwordMethod(password, { store, pool: logins.pool, now: logins.now, ...(logins.policy ? { policy: logins.policy } : {}) });
        const leave = logins.perSource.enter(request.ip);
        let personId: string;
        try {
          ({ personId } = await logins.flow.authenticate(org, handle, method));
        } finally {
          leave();
        }
        await consolePersonOf(deps, org, personId, 'password');
        const hasTotp = (await store.listCredentialsOfType(org.id, personId, 'totp')).length > 0;
        await sessions.begin(reply, ctx.state, {
          orgId: org.id,
          personId,
          stage: hasTotp ? 'second_factor' : 'signed_in',
          handle: hasTotp ? handle : null,
          amr: ['pwd'],
        });
        return seeOther(reply, hasTotp ? '/console/sign-in/code' : SIGNED_IN_HOME);
      } catch (error) {
        return refuseOnForm(error, reply, (problem) => signInPage(reply, ctx, { ...form, errors: [problem.message], status: problem.status }));
      }
    });

    app.get('/console/sign-in/code', async (request, reply) => {
      const ctx = consoleRequest(request);
      if (!ctx.pending) return seeOther(reply, ctx.signedIn ? SIGNED_IN_HOME : '/console/sign-in?notice=expired');
      return codePage(reply, ctx);
    });

    app.post('/console/sign-in/code', async (request, reply) => {
      const ctx = consoleRequest(request);
      const pending = ctx.pending;
      if (!pending?.session.handle) return seeOther(reply, '/console/sign-in?notice=expired');
      try {
        const code = field(request.body, 'code').trim();
        if (code === '') throw new ApiError('INVALID_FIELD', 'code: is required (six digits, or a recovery code)');
        const method = totpMethod(code, { store, context: logins.context, now: logins.now });
        const handle = pending.session.handle as Handle;
        const { personId } = await logins.flow.authenticate(pending.org, handle, method);
        if (personId !== pending.person.id) throw new ApiError('UNAUTHENTICATED', 'console: the code is not of the person whose password was accepted');
        await sessions.begin(reply, ctx.state, { orgId: pending.org.id, personId, stage: 'signed_in', amr: ['pwd', 'otp', 'mfa'] });
        return seeOther(reply, SIGNED_IN_HOME);
      } catch (error) {
        return refuseOnForm(error, reply, (problem) => codePage(reply, ctx, [problem.message], problem.status));
      }
    });

    app.post('/console/sign-out', async (request, reply) => {
      await sessions.end(reply, consoleRequest(request).state);
      return seeOther(reply, '/console/sign-in?notice=signed-out');
    });

    app.post('/console/sign-out-everywhere', async (request, reply) => {
      await sessions.endEverywhere(reply, signedIn(request).session);
      return seeOther(reply, '/console/sign-in?notice=signed-out-everywhere');
    });

    await app.register(passkeySignInRoutes(deps));
  };
}

/** Renders the form again with the problem when a person can correct it; rethrows anything else. */
function refuseOnForm(error: unknown, reply: FastifyReply, render: (problem: { status: number; message: string }) => FastifyReply): FastifyReply {
  const problem = formErrorOf(error);
  if (!problem) throw error;
  if (error instanceof ApiError) reply.headers(error.headers);
  return render(problem);
}
