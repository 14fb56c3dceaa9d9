import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import { pageRequest } from '../../http/pagination.ts';
import type { IdentityConnection } from '../../store/connections/store.ts';
import type { EmailVerification } from '../../store/verifications/store.ts';
import { CODE_PATTERN } from '../../verification/code.ts';
import { MAX_WRONG_CODES } from '../../verification/deps.ts';
import { findIdentity } from '../../verification/find.ts';
import { initiateVerification } from '../../verification/initiate.ts';
import { type HelpdeskOperator, helpdeskOperator } from '../../verification/operator.ts';
import { InitiateBody } from '../../verification/schemas.ts';
import { verifyCode } from '../../verification/verify.ts';
import { consoleRequest, type SignedIn, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field } from '../form-body.ts';
import { checkBody, FormRefusal, formRefusalOf } from '../form-refusals.ts';
import { codeEntryPage, type FindForm, findPage, foundPage, outcomePage, type Subject } from './pages.ts';

/** The signed-in verifier, as the helpdesk core names its caller and operator (design §6: helpdesk_session). */
function verifierOf(request: FastifyRequest): SignedIn & HelpdeskOperator {
  const who = signedIn(request, 'verifier');
  return { ...who, ...helpdeskOperator(who.person, { amr: who.session.amr, authTime: who.session.authTime }, 'console') };
}

/** A refusal the verifier can act on from the form (404 nobody there, 429 with when to retry), beside the 400s and 409s formRefusalOf takes. */
function asRefusal(error: unknown): FormRefusal | undefined {
  if (!(error instanceof ApiError) || (error.status !== 404 && error.status !== 429)) return undefined;
  return new FormRefusal(error.status, [error.message.replace(/^body\./, '')]);
}

/** Verify a caller: find → send → the code they read out → the outcome. Each step is the helpdesk core, audited with the verifier as operator. */
export function verifyRoutes(deps: ConsoleDeps) {
  const { store, verification } = deps;
  const connectionsOf = async (orgId: string): Promise<IdentityConnection[]> =>
    (await store.listConnections(orgId, pageRequest('connections', { limit: 100 }))).items;
  // The directory by name, as the find page showed it; by id when it has been deleted since.
  const subjectOf = async (orgId: string, v: EmailVerification): Promise<Subject> => ({
    email: v.emailSentTo,
    identityId: v.identityId,
    directory: (await store.getConnection(orgId, v.connectionId))?.name ?? v.connectionId,
  });

  const findAgain = async (request: FastifyRequest, reply: FastifyReply, form: FindForm, refusal: FormRefusal) => {
    const who = signedIn(request);
    return findPage(reply, consoleRequest(request), await connectionsOf(who.org.id), form, refusal.messages, refusal.status);
  };

  return async (app: FastifyInstance) => {
    app.get('/console/verify', async (request, reply) => {
      const { org } = verifierOf(request);
      return findPage(reply, consoleRequest(request), await connectionsOf(org.id), { connectionId: '', email: '', identityId: '' });
    });

    app.post('/console/verify/find', async (request, reply) => {
      const { org, caller, operatorId } = verifierOf(request);
      const form = {
        connectionId: field(request.body, 'connection_id'),
        email: field(request.body, 'email').trim(),
        identityId: field(request.body, 'identity_id').trim(),
      };
      try {
        const connection = await store.getConnection(org.id, form.connectionId);
        if (!connection) throw new ApiError('INVALID_FIELD', 'connection_id: choose one of the directories listed');
        if ((form.email === '') === (form.identityId === '')) throw new ApiError('INVALID_FIELD', 'email or identity_id: fill in exactly one of the two');
        const body = { connection_id: connection.id, ...(form.email !== '' ? { email: form.email } : { identity_id: form.identityId }) };
        checkBody(InitiateBody, body);
        return foundPage(reply, consoleRequest(request), connection, await findIdentity(verification, org, caller, operatorId, body));
      } catch (error) {
        const refusal = formRefusalOf(error) ?? asRefusal(error);
        if (refusal) return findAgain(request, reply, form, refusal);
        throw error;
      }
    });

    app.post('/console/verify/send', async (request, reply) => {
      const { org, caller } = verifierOf(request);
      const body = { connection_id: field(request.body, 'connection_id'), identity_id: field(request.body, 'identity_id') };
      try {
        checkBody(InitiateBody, body);
        const { verification_id } = await initiateVerification(verification, org, caller, body);
        return seeOther(reply, `/console/verify/${verification_id}`);
      } catch (error) {
        const refusal = formRefusalOf(error) ?? asRefusal(error);
        if (refusal) return findAgain(request, reply, { connectionId: body.connection_id, email: '', identityId: body.identity_id }, refusal);
        throw error;
      }
    });

    app.get('/console/verify/:verification_id', async (request, reply) => {
      const { org } = verifierOf(request);
      const open = await store.getEmailVerification(org.id, (request.params as { verification_id: string }).verification_id);
      if (!open) return outcomePage(reply, consoleRequest(request), 'gone');
      if (open.state !== 'open' || open.expiresAt <= deps.now()) return outcomePage(reply, consoleRequest(request), 'gone', await subjectOf(org.id, open));
      return codeEntryPage(reply, consoleRequest(request), { verificationId: open.id, sentTo: open.emailSentTo, expiresAt: open.expiresAt });
    });

    app.post('/console/verify/:verification_id', async (request, reply) => {
      const { org, caller, operator, operatorId } = verifierOf(request);
      const ctx = consoleRequest(request);
      const id = (request.params as { verification_id: string }).verification_id;
      const open = await store.getEmailVerification(org.id, id);
      if (!open) return outcomePage(reply, ctx, 'gone');
      const state = { verificationId: open.id, sentTo: open.emailSentTo, expiresAt: open.expiresAt };
      const code = field(request.body, 'code').trim();
      if (!CODE_PATTERN.test(code)) return codeEntryPage(reply, ctx, state, ['code: must be the 6 digits the caller reads out'], 400);
      const subject = await subjectOf(org.id, open);
      try {
        const { verified } = await verifyCode(
          verification,
          org,
          caller,
          operator,
          { verification_id: id, code, connection_id: open.connectionId },
          async () => operatorId,
        );
        if (verified) return outcomePage(reply, ctx, 'verified', subject);
        const after = await store.getEmailVerification(org.id, id);
        const attemptsLeft = Math.max(0, MAX_WRONG_CODES - (after?.attempts ?? MAX_WRONG_CODES));
        if (attemptsLeft === 0) return outcomePage(reply, ctx, 'locked', subject);
        return codeEntryPage(reply, ctx, { ...state, attemptsLeft }, [], 200);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.code === 'TOO_MANY_VERIFICATION_ATTEMPTS') return outcomePage(reply, ctx, 'locked', subject);
        if (error.code === 'IDENTITY_NOT_VERIFIABLE') return outcomePage(reply, ctx, 'denied', subject);
        if (error.code === 'NOT_FOUND') return outcomePage(reply, ctx, 'gone', subject);
        if (error.status === 429) return codeEntryPage(reply.headers(error.headers), ctx, state, [error.message], 429);
        throw error;
      }
    });
  };
}
