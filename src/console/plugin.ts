import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasSecondFactor, needsTwoFactors, provedTwoFactors } from '../authn/assurance.ts';
import { ApiError } from '../errors/api-error.ts';
import { errorBody } from '../http/envelope.ts';
import { toErrorResponse } from '../http/error-handler.ts';
import { adminRoutes } from './admin/routes.ts';
import { assetRoutes } from './assets.ts';
import { ConfirmationRequired } from './confirm/recent.ts';
import { confirmRoutes } from './confirm/routes.ts';
import {
  type ConsoleRequest,
  consoleRequest,
  ENROLMENT_PAGE,
  EnrolmentRequired,
  type SignedIn,
  SignInRequired,
  seeOther,
  setConsoleRequest,
} from './context.ts';
import type { ConsoleDeps } from './deps.ts';
import { acceptForms, checkBodyKind, field, wrongBodyKind } from './form-body.ts';
import { consoleHeaders } from './headers.ts';
import { html } from './html.ts';
import { invitationRoutes } from './invitation/routes.ts';
import { renderPage } from './layout.ts';
import { securityRoutes } from './security/routes.ts';
import { signInRoutes } from './sign-in/routes.ts';
import { verifyRoutes } from './verify/routes.ts';

const NOT_FOUND_ROUTE = '/console/*';

/** The console's pages, under /console/: served by the service itself, no build step. */
export function consolePlugin(deps: ConsoleDeps) {
  return async (app: FastifyInstance) => {
    // Assets need no session: registered beside the pages, not behind their hook.
    await app.register(async (assets) => {
      assets.addHook('onRequest', async (_request, reply) => consoleHeaders(reply));
      assetRoutes(assets);
    });
    await app.register(async (pages) => {
      acceptForms(pages);
      pages.addHook('onRequest', async (request, reply) => {
        consoleHeaders(reply);
        setConsoleRequest(request, await readBrowser(deps, request, reply));
      });
      pages.addHook('preValidation', async (request) => checkBodyKind(request));
      // Every state-changing request carries the page's token: a form field, or a header from our own script.
      pages.addHook('preHandler', async (request) => {
        if (request.method === 'GET' || request.method === 'HEAD' || request.routeOptions.url === NOT_FOUND_ROUTE) return;
        const { state } = consoleRequest(request);
        // A form posted from a page whose session has since ended: back to sign-in (nothing is
        // changed either way), rather than a CSRF refusal the person cannot act on.
        if (state.stale) throw new SignInRequired('expired');
        deps.sessions.checkCsrf(state, field(request.body, '_csrf') || request.headers['x-csrf-token']);
      });
      pages.setErrorHandler((error, request, reply) => answerError(error, request, reply));
      // A route rather than a not-found handler: fastify keeps one of those per prefix, and this is
      // the API's. Any method: a form posted to a wrong address gets a page too (it changes nothing,
      // so it needs no CSRF token).
      pages.all(NOT_FOUND_ROUTE, async (request, reply) =>
        renderPage(reply, consoleRequest(request), {
          title: 'Page not found',
          status: 404,
          body: html`<p>There is no console page at this address. <a href="/console/">Go to the console's start.</a></p>`,
        }),
      );
      pages.get('/console', async (_request, reply) => seeOther(reply, '/console/'));
      pages.get('/console/', async (request, reply) => {
        const { signedIn: who, enrolling, pending } = consoleRequest(request);
        if (enrolling) return seeOther(reply, ENROLMENT_PAGE);
        if (!who) return seeOther(reply, pending ? '/console/sign-in/code' : '/console/sign-in');
        return seeOther(reply, who.person.roles.includes('verifier') ? '/console/verify' : '/console/security');
      });
      await pages.register(signInRoutes(deps));
      await pages.register(invitationRoutes(deps));
      await pages.register(confirmRoutes(deps));
      await pages.register(verifyRoutes(deps));
      await pages.register(adminRoutes(deps));
      await pages.register(securityRoutes(deps));
    });
  };
}

async function readBrowser(deps: ConsoleDeps, request: FastifyRequest, reply: FastifyReply): Promise<ConsoleRequest> {
  let state = await deps.sessions.read(request);
  let ctx: Pick<ConsoleRequest, 'signedIn' | 'enrolling' | 'pending'> = { signedIn: undefined, enrolling: undefined, pending: undefined };
  if (state.session) {
    const { orgId, personId } = state.session;
    const [org, person] = await Promise.all([deps.store.getOrganization(orgId), deps.store.getPerson(orgId, personId)]);
    const who = org && person ? await standing(deps, { session: state.session, org, person }) : undefined;
    if (who) ctx = who;
    else {
      await deps.sessions.end(reply, state);
      state = { ...deps.sessions.signedOut(request), stale: true };
    }
  }
  deps.sessions.keepAnonymous(reply, state);
  return { state, csrf: deps.sessions.csrfToken(state), ...ctx };
}

/**
 * What a session may do now, read on every request from the person as they are, or undefined
 * when it has ended: taken out of the console, of an earlier generation (they signed out
 * everywhere, lost a credential or changed roles since), or signed in with one factor while the
 * person now holds a second (added elsewhere: that sign-in no longer proves enough). An
 * administrator or verifier without a second factor is kept to the enrolment page.
 */
async function standing(deps: ConsoleDeps, who: SignedIn): Promise<Pick<ConsoleRequest, 'signedIn' | 'enrolling' | 'pending'> | undefined> {
  const { session, org, person } = who;
  const none = { signedIn: undefined, enrolling: undefined, pending: undefined };
  if (!person.console || person.generation !== session.generation) return undefined;
  if (session.stage === 'second_factor') return { ...none, pending: who };
  if (provedTwoFactors(session)) return { ...none, signedIn: who };
  if (await hasSecondFactor(deps.store, org.id, person.id)) return undefined;
  return needsTwoFactors(person) ? { ...none, enrolling: who } : { ...none, signedIn: who };
}

/** Errors as pages a person can read (the console's own script asks for JSON, and gets the API's envelope). */
function answerError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const wantsJson = request.headers.accept?.includes('application/json') === true;
  const redirect = error instanceof SignInRequired || error instanceof EnrolmentRequired || error instanceof ConfirmationRequired;
  if (redirect && !wantsJson) return seeOther(reply, error.location);
  const response = toErrorResponse(apiErrorOf(error, request));
  if (response.errors[0]?.code === 'INTERNAL_ERROR') request.log.error({ err: error }, 'console request failed');
  reply.headers(response.headers ?? {});
  if (wantsJson) return reply.code(response.status).send(errorBody(response.status, response.errors));
  const ctx = consoleRequestOrNone(request);
  const title = response.status === 403 ? 'Not allowed' : response.status >= 500 ? 'Something went wrong' : 'That did not work';
  return renderPage(reply, ctx, {
    title,
    status: response.status,
    body: html`<div class="error" role="alert"><ul>${response.errors.map((e) => html`<li>${e.message}</li>`)}</ul></div>
      <p><a href="/console/">Back to the console</a></p>`,
  });
}

/** The console's own redirects, for its script (which asks for JSON): the API's error of the same meaning. */
function apiErrorOf(error: unknown, request: FastifyRequest): unknown {
  // A media type no parser of the console's takes: say which one this route takes.
  if ((error as { code?: unknown }).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return wrongBodyKind(request);
  if (error instanceof SignInRequired) return new ApiError('UNAUTHENTICATED', 'console: sign in first (the session has ended)');
  if (error instanceof EnrolmentRequired) return new ApiError('FORBIDDEN', `${error.message} (${ENROLMENT_PAGE})`);
  if (error instanceof ConfirmationRequired) return new ApiError('INSUFFICIENT_USER_AUTHENTICATION', `${error.message} (${error.location})`);
  return error;
}

function consoleRequestOrNone(request: FastifyRequest): ConsoleRequest {
  try {
    return consoleRequest(request);
  } catch {
    // The hook itself failed (the database is down): a page without a session's navigation.
    return { state: { session: undefined, binding: '', newAnonymous: false }, csrf: '', signedIn: undefined, enrolling: undefined, pending: undefined };
  }
}
