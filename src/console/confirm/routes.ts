import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError } from '../../errors/api-error.ts';
import { passkeysConfigured } from '../../methods/passkey/relying-party.ts';
import { passwordMethod } from '../../methods/password/login.ts';
import type { Organization, Person } from '../../store/types.ts';
import { consoleRequest, type SignedIn, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field, SCRIPT_JSON } from '../form-body.ts';
import { checkSecret } from '../sign-in/secret.ts';
import { confirmPage } from './pages.ts';
import { CONFIRMED, safeReturnPath } from './recent.ts';

const PasskeyBody = Type.Object(
  {
    challenge_id: Type.String({ minLength: 1, maxLength: 64 }),
    response: Type.Object({ id: Type.String({ minLength: 1, maxLength: 1400 }), type: Type.Literal('public-key') }, { additionalProperties: true }),
    next: Type.Optional(Type.String({ maxLength: 512 })),
  },
  { additionalProperties: false },
);

/** What the person can confirm with: their password, and their passkeys where the organisation has them on. */
async function meansOf(deps: ConsoleDeps, org: Organization, person: Person): Promise<{ hasPassword: boolean; hasPasskey: boolean }> {
  const [passwords, passkeys] = await Promise.all([
    deps.store.listCredentialsOfType(org.id, person.id, 'password'),
    deps.store.listCredentialsOfType(org.id, person.id, 'public-key'),
  ]);
  return { hasPassword: passwords.length > 0 && person.handles.length > 0, hasPasskey: passkeysConfigured(org) && passkeys.length > 0 };
}

/** The secret was right but names someone else (a passkey of another account on this device): a failure like any. */
function requireSamePerson(who: SignedIn, personId: string): void {
  if (personId !== who.person.id) throw new ApiError('UNAUTHENTICATED', 'console: that is not the signed-in person’s password or passkey');
}

/** Failures a person can correct on the form; anything else is an error page. */
function formErrorOf(error: unknown): { status: number; message: string } | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.code === 'UNAUTHENTICATED') return { status: 401, message: 'The password does not match.' };
  if (['INVALID_FIELD', 'TOO_MANY_ATTEMPTS', 'TOO_MANY_LOGINS_IN_FLIGHT', 'PASSWORD_CHECKS_BUSY'].includes(error.code)) {
    return { status: error.status, message: error.message };
  }
  return undefined;
}

/**
 * /console/confirm: the password or a passkey again (design §5), through the same login flow as
 * a sign-in (so a wrong guess counts toward the same lockout), for the signed-in person only. The
 * session's auth_time moves to now; the person goes back to `next` and repeats the action.
 */
export function confirmRoutes(deps: ConsoleDeps) {
  const { store, sessions, logins } = deps;
  const login = () => import('../../methods/passkey/login.ts');
  const back = (next: string) => `${next}${next.includes('?') ? '&' : '?'}notice=${CONFIRMED}`;
  const render = async (request: FastifyRequest, reply: FastifyReply, next: string, problem?: { status: number; message: string }) => {
    const { org, person } = signedIn(request);
    return confirmPage(reply, consoleRequest(request), {
      next,
      ...(await meansOf(deps, org, person)),
      ...(problem ? { errors: [problem.message], status: problem.status } : {}),
    });
  };

  return async (app: FastifyInstance) => {
    app.get('/console/confirm', async (request, reply) => render(request, reply, safeReturnPath((request.query as Record<string, unknown>).next)));

    app.post('/console/confirm', async (request, reply) => {
      const who = signedIn(request);
      const next = safeReturnPath(field(request.body, 'next'));
      const handle = who.person.handles[0];
      const password = field(request.body, 'password');
      try {
        if (!handle || password === '') throw new ApiError('UNAUTHENTICATED', 'password: is required');
        checkSecret('password', password);
        const method = passwordMethod(password, { store, pool: logins.pool, now: deps.now, ...(logins.policy ? { policy: logins.policy } : {}) });
        const leave = logins.perSource.enter(request.ip);
        try {
          requireSamePerson(who, (await logins.flow.authenticate(who.org, handle, method)).person.id);
        } finally {
          leave();
        }
      } catch (error) {
        const problem = formErrorOf(error);
        if (!problem) throw error;
        if (error instanceof ApiError) reply.headers(error.headers);
        return render(request, reply, next, problem);
      }
      await sessions.reauthenticated(consoleRequest(request).state);
      return seeOther(reply, back(next));
    });

    app.post('/console/confirm/passkey/options', { config: SCRIPT_JSON }, async (request) => {
      const { org, person } = signedIn(request);
      return (await login()).startLoginOfPerson(deps.webauthn, org, person);
    });

    app.post('/console/confirm/passkey', { config: SCRIPT_JSON, schema: { body: PasskeyBody } }, async (request) => {
      const who = signedIn(request);
      const body = request.body as { challenge_id: string; response: unknown; next?: string };
      const onRefused = (reason: string) => request.log.info({ reason }, 'console passkey confirmation refused');
      const proof = await (await login()).authenticateWithPasskey(deps.webauthn, who.org, body, onRefused);
      requireSamePerson(who, proof.personId);
      await sessions.reauthenticated(consoleRequest(request).state);
      return { location: back(safeReturnPath(body.next)) };
    });
  };
}
