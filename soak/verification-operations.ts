import { codeFrom } from '../test/helpers/smtp.ts';
import { call, json } from './client.ts';
import type { LoadContext } from './operations.ts';
import { pick, unique } from './random.ts';

const MAIL_WAIT_MS = 5_000;

function scim(ctx: LoadContext, operation: string, method: string, path: string, body?: unknown) {
  return call(ctx.ledger, operation, `${ctx.replica()}/scim/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${ctx.fixtures.scim.token}`, ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** A new identity pushed over SCIM; its SCIM id and address once acknowledged. */
async function provision(ctx: LoadContext): Promise<{ id: string; email: string } | undefined> {
  const email = `caller.${unique()}@example.com`;
  const user = {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    userName: email,
    emails: [{ value: email, type: 'work', primary: true }],
    active: true,
  };
  const answer = await scim(ctx, 'SCIM create', 'POST', '/Users', user);
  ctx.ledger.unanswered(answer);
  if (answer?.status !== 201) return undefined;
  ctx.ledger.acked.identities.add(answer.body.id);
  return { id: answer.body.id, email };
}

async function remove(ctx: LoadContext, id: string): Promise<boolean> {
  const answer = await scim(ctx, 'SCIM delete', 'DELETE', `/Users/${id}`);
  if (answer === undefined) {
    // The delete may or may not have been committed: the identity is checked neither way.
    ctx.ledger.acked.identities.delete(id);
    ctx.ledger.unanswered(answer);
    return false;
  }
  if (answer.status !== 204) return false;
  ctx.ledger.acked.identities.delete(id);
  ctx.ledger.acked.removed.set(id, Date.now());
  return true;
}

/** The code of the email to `address`, once the mail server has it. */
async function codeSentTo(ctx: LoadContext, address: string): Promise<string | undefined> {
  const deadline = Date.now() + MAIL_WAIT_MS;
  while (Date.now() < deadline) {
    const mail = ctx.smtp.messages.findLast((m) => m.rcptTo.includes(address));
    if (mail) return codeFrom(mail);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/** Initiates at the helpdesk door and reads the code the caller would read out. */
async function initiate(ctx: LoadContext, operation: string, identity: { id: string; email: string }) {
  const body = { connection_id: ctx.fixtures.scim.connectionId, identity_id: identity.id };
  const verifier = pick(ctx.fixtures.verifiers)!;
  const answer = await call(ctx.ledger, operation, `${ctx.replica()}/helpdesk/email-verifications`, json(body, verifier));
  if (answer?.status !== 201) return undefined;
  const code = await codeSentTo(ctx, identity.email);
  if (!code) ctx.ledger.violation('other', `${operation}: initiate answered 201 but no email reached ${identity.email} within ${MAIL_WAIT_MS} ms`);
  return code ? { verificationId: answer.body.result.verification_id as string, code, verifier } : undefined;
}

function verify(ctx: LoadContext, operation: string, started: { verificationId: string; code: string; verifier: Record<string, string> }) {
  const body = { verification_id: started.verificationId, code: started.code, connection_id: ctx.fixtures.scim.connectionId };
  return call(ctx.ledger, operation, `${ctx.replica()}/helpdesk/email-verifications/verify`, json(body, started.verifier));
}

export const verificationOperations: Record<string, { weight: number; run(ctx: LoadContext): Promise<void> }> = {
  'email verification': {
    weight: 5,
    async run(ctx) {
      const identity = await provision(ctx);
      const started = identity && (await initiate(ctx, 'verification initiate', identity));
      if (!started) return;
      const answer = await verify(ctx, 'verification verify', started);
      if (answer?.status === 200 && answer.body.result.verified !== true) ctx.ledger.violation('other', 'verification verify: the right code was judged wrong');
    },
  },
  'SCIM change': {
    weight: 4,
    async run(ctx) {
      const id = pick([...ctx.ledger.acked.identities]);
      if (!id) return;
      const patch = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'displayName', value: `Caller ${unique()}` }],
      };
      await scim(ctx, 'SCIM patch', 'PATCH', `/Users/${id}`, patch);
    },
  },
  // The deny-gate: an identity removed between the code's sending and its verify is not verified.
  'removed before verify': {
    weight: 3,
    async run(ctx) {
      const identity = await provision(ctx);
      const started = identity && (await initiate(ctx, 'verification initiate', identity));
      if (!identity || !started || !(await remove(ctx, identity.id))) return;
      const answer = await verify(ctx, 'verify after removal', started);
      if (answer?.status === 200 && answer.body.result.verified === true)
        ctx.ledger.violation('removed identity', `an identity removed at ${ctx.ledger.acked.removed.get(identity.id)} was verified`);
    },
  },
  'initiate for removed': {
    weight: 2,
    async run(ctx) {
      const id = pick([...ctx.ledger.acked.removed.keys()]);
      if (!id) return;
      const body = { connection_id: ctx.fixtures.scim.connectionId, identity_id: id };
      const answer = await call(ctx.ledger, 'initiate for removed', `${ctx.replica()}/helpdesk/email-verifications`, json(body, pick(ctx.fixtures.verifiers)!));
      if (answer && answer.status < 300)
        ctx.ledger.violation('removed identity', `a verification was started for identity ${id}, removed at ${ctx.ledger.acked.removed.get(id)}`);
    },
  },
};
