import assert from 'node:assert/strict';
import { signedInWithTwoFactors } from '../helpers/authn.ts';
import { createOrg, type FreshDatabase, freshDatabase, type Replica, startReplicas } from '../helpers/replicas.ts';
import type { Response, TestOrg } from '../helpers/service.ts';
import { codeFrom, type SmtpListener, startSmtpListener } from '../helpers/smtp.ts';
import { scimTenant } from '../scim/scim-helpers.ts';
import { scimUser } from '../verification/harness.ts';

/** A console verifier at the helpdesk door: initiates and verifies on whichever replica it is told. */
export interface Verifier {
  initiate(on: Replica, identityId: string): Promise<Response>;
  /** Initiates for the identity and reads the code out of its email. */
  started(on: Replica, identity: { id: string; email: string }): Promise<{ id: string; code: string }>;
  verify(on: Replica, verificationId: string, code: string): Promise<Response>;
}

export interface Helpdesk {
  /** A new identity of the SCIM connection, with a work email. */
  provision(): Promise<{ id: string; email: string }>;
  /** A new console person holding the verifier role, with their person JWT. */
  verifier(): Promise<Verifier>;
}

/**
 * Email verification over replicas: one SCIM connection of `org`, identities pushed to it, and
 * verifiers calling the helpdesk door. The replicas send through `smtp`; callers take one
 * code at a time from it, so each email is the one the last initiate sent.
 */
export async function helpdesk(replicas: readonly Replica[], org: TestOrg, smtp: SmtpListener): Promise<Helpdesk> {
  const [first] = replicas as [Replica];
  const scim = await scimTenant(first.t, org);
  return {
    async provision() {
      const email = `caller.${Math.random().toString(36).slice(2)}@example.com`;
      const created = await scim.call('POST', '/Users', scimUser(email));
      assert.equal(created.status, 201, JSON.stringify(created.body));
      return { id: created.body.id as string, email };
    },
    async verifier() {
      const email = `verifier.${Math.random().toString(36).slice(2)}@example.org`;
      const created = await first.t.call('POST', '/persons', {
        as: org,
        body: { handles: [{ type: 'email_address', value: email }], roles: ['verifier'], console: true },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const jwt = await signedInWithTwoFactors(first.t, org, created.body.result.id, email);
      const as = { 'service-orgid': org.orgId, authorization: `Bearer ${jwt}` };
      const initiate = (on: Replica, identityId: string) =>
        on.t.call('POST', '/helpdesk/email-verifications', { as, body: { connection_id: scim.connectionId, identity_id: identityId } });
      return {
        initiate,
        async started(on, identity) {
          const response = await initiate(on, identity.id);
          assert.equal(response.status, 201, JSON.stringify(response.body));
          const mail = await smtp.nextMessage();
          assert.deepEqual(mail.rcptTo, [identity.email]);
          return { id: response.body.result.verification_id, code: codeFrom(mail) };
        },
        verify: (on, verificationId, code) =>
          on.t.call('POST', '/helpdesk/email-verifications/verify', { as, body: { verification_id: verificationId, code, connection_id: scim.connectionId } }),
      };
    },
  };
}

/** The error code of an API envelope, `verified:<bool>` for a judged verify, else the status. */
export function outcomeOf(response: Response): string {
  if (typeof response.body?.result?.verified === 'boolean') return `verified:${response.body.result.verified}`;
  return response.body?.errors?.[0]?.code ?? `status ${response.status}`;
}

/** Two replicas over a fresh database, sending mail to a real SMTP listener, with an organisation and its helpdesk. */
export interface HelpdeskReplicas {
  database: FreshDatabase;
  smtp: SmtpListener;
  replicas: [Replica, Replica];
  org: TestOrg;
  desk: Helpdesk;
  /** Kills the replicas, drops the database, closes the listener. */
  stop(): Promise<void>;
}

export async function startHelpdeskReplicas(server: string, env: Record<string, string> = {}): Promise<HelpdeskReplicas> {
  const [database, smtp] = await Promise.all([freshDatabase(server), startSmtpListener()]);
  const stopAll = async (replicas: readonly Replica[]) => {
    await Promise.all(replicas.map((replica) => replica.kill('SIGKILL')));
    await Promise.all([database.drop(), smtp.close()]);
  };
  let replicas: [Replica, Replica] | undefined;
  try {
    replicas = (await startReplicas(2, {
      databaseUrl: database.url,
      env: { TESSERA_SMTP_URL: smtp.url, TESSERA_SMTP_FROM: 'verify@example.org', ...env },
    })) as [Replica, Replica];
    const org = await createOrg(database.url);
    const running = replicas;
    return { database, smtp, replicas, org, desk: await helpdesk(replicas, org, smtp), stop: () => stopAll(running) };
  } catch (error) {
    await stopAll(replicas ?? []);
    throw error;
  }
}
