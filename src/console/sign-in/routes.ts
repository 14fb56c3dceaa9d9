import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { secondFactorMethods } from '../../authn/assurance.ts';
import { afterPassword, completeSignIn } from '../../authn/second-factor.ts';
import { ApiError } from '../../errors/api-error.ts';
import { passkeysConfigured } from '../../methods/passkey/relying-party.ts';
import { passwordMethod } from '../../methods/password/login.ts';
import { totpMethod } from '../../methods/totp/login.ts';
import { signOutEverywhere } from '../../persons/operations.ts';
import type { Organization } from '../../store/types.ts';
import { type ConsoleRequest, consoleRequest, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field } from '../form-body.ts';
import { noticeFrom } from '../notice.ts';
import { isTicketEnded, signInAgain } from './again.ts';
import { localhostRedirect } from './localhost.ts';
import { organizationNamed } from './organization.ts';
import { codePage, signInPage } from './pages.ts';
import { passkeySignInRoutes } from './passkey.ts';
import { consolePersonOf, emailHandle, SIGNED_IN_HOME } from './person.ts';
import { checkSecret } from './secret.ts';

const notices: Record<string, string> = {
  'signed-out': 'You are signed out.',
  'signed-out-everywhere': 'You are signed out on every device.',
  expired: 'Your session ended; sign in again.',
  'second-factor-ended': 'That sign-in was not completed: it lasts five minutes and allows five codes. Sign in again.',
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

/** The organisation of whatever session the browser has, for the sign-in page it is sent back to. */
function organizationOfBrowser(ctx: ConsoleRequest): Organization | undefined {
  return (ctx.signedIn ?? ctx.enrolling ?? ctx.pending)?.org;
}

export function signInRoutes(deps: ConsoleDeps) {
  const { store, sessions, logins } = deps;
  const tickets = { store, now: deps.now, attemptMetrics: deps.logins.attemptMetrics };
  return async (app: FastifyInstance) => {
    app.get('/console/sign-in', async (request, reply) => {
      const ctx = consoleRequest(request);
      if (ctx.signedIn || ctx.enrolling) return seeOther(reply, SIGNED_IN_HOME);
      const query = request.query as Record<string, unknown>;
      // Echoed into the form: an organisation name, never control characters (U+0000 would reach the page).
      const org = typeof query.org === 'string' && /^\P{Cc}{1,100}$/u.test(query.org) ? query.org : '';
      const elsewhere = org === '' ? undefined : await localhostRedirect(store, request, org);
      if (elsewhere) return reply.code(302).header('location', elsewhere).send();
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
        checkSecret('password', password);
        const method = passwordMethod(password, { store, pool: logins.pool, now: deps.now, ...(logins.policy ? { policy: logins.policy } : {}) });
        const leave = logins.perSource.enter(request.ip);
        let person: Awaited<ReturnType<typeof consolePersonOf>>;
        try {
          person = (await logins.flow.authenticate(org, handle, method)).person;
        } finally {
          leave();
        }
        person = await consolePersonOf(deps, org, person.id, 'password');
        const next = await afterPassword(tickets, org, person, handle);
        if (next.kind === 'signed_in') {
          const { amr, generation, authTime } = next.signIn;
          await sessions.begin(reply, ctx.state, { orgId: org.id, personId: person.id, stage: 'signed_in', amr: [...amr], generation, authTime });
          return seeOther(reply, SIGNED_IN_HOME);
        }
        const pending = { orgId: org.id, personId: person.id, stage: 'second_factor' as const, ticketHash: next.ticketHash, amr: ['pwd'] };
        await sessions.begin(reply, ctx.state, { ...pending, generation: person.generation });
        return seeOther(reply, '/console/sign-in/code');
      } catch (error) {
        return refuseOnForm(error, reply, (problem) => signInPage(reply, ctx, { ...form, errors: [problem.message], status: problem.status }));
      }
    });

    const showCodePage = async (request: FastifyRequest, reply: FastifyReply, problem?: { status: number; message: string }) => {
      const ctx = consoleRequest(request);
      const { org, person } = ctx.pending!;
      const methods = await secondFactorMethods(store, org.id, person.id);
      return codePage(reply, ctx, { totp: methods.includes('totp'), passkey: passkeysConfigured(org) && methods.includes('passkey') }, problem);
    };

    app.get('/console/sign-in/code', async (request, reply) => {
      const ctx = consoleRequest(request);
      if (!ctx.pending) return seeOther(reply, ctx.signedIn || ctx.enrolling ? SIGNED_IN_HOME : '/console/sign-in?notice=expired');
      return showCodePage(request, reply);
    });

    app.post('/console/sign-in/code', async (request, reply) => {
      const ctx = consoleRequest(request);
      const pending = ctx.pending;
      if (!pending?.session.ticketHash) return seeOther(reply, ctx.signedIn || ctx.enrolling ? SIGNED_IN_HOME : '/console/sign-in?notice=expired');
      try {
        const code = field(request.body, 'code').trim();
        if (code === '') throw new ApiError('INVALID_FIELD', 'code: is required (six digits, or a recovery code)');
        checkSecret('code', code);
        const method = totpMethod(code, { store, context: logins.context, now: deps.now });
        const signIn = await completeSignIn(tickets, pending.org, pending.session.ticketHash, 'totp', async (ticket) => {
          const { person, amr } = await logins.flow.authenticate(pending.org, ticket.handle, method);
          return { personId: person.id, amr };
        });
        const { amr, generation, authTime } = signIn;
        await sessions.begin(reply, ctx.state, { orgId: pending.org.id, personId: signIn.personId, stage: 'signed_in', amr: [...amr], generation, authTime });
        return seeOther(reply, SIGNED_IN_HOME);
      } catch (error) {
        if (isTicketEnded(error)) {
          await sessions.end(reply, ctx.state);
          return seeOther(reply, signInAgain('second-factor-ended', pending.org));
        }
        const problem = error instanceof ApiError && error.code === 'UNAUTHENTICATED' ? { status: 401, message: error.message } : formErrorOf(error);
        if (!problem) throw error;
        if (error instanceof ApiError) reply.headers(error.headers);
        return showCodePage(request, reply, problem);
      }
    });

    app.post('/console/sign-out', async (request, reply) => {
      const ctx = consoleRequest(request);
      await sessions.end(reply, ctx.state);
      return seeOther(reply, signInAgain('signed-out', organizationOfBrowser(ctx)));
    });

    app.post('/console/sign-out-everywhere', async (request, reply) => {
      const { org, person, session } = signedIn(request);
      // Design §5: every console session of theirs and every person JWT issued before end.
      await signOutEverywhere(store, org.id, person.id, deps.now(), { kind: 'console', personId: person.id });
      await sessions.endEverywhere(reply, session);
      return seeOther(reply, signInAgain('signed-out-everywhere', org));
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
