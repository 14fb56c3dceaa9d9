import assert from 'node:assert/strict';
import type { Backend } from '../helpers/backends.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';
import { codeFrom, type SmtpListener, type SmtpListenerOptions, startSmtpListener } from '../helpers/smtp.ts';
import { type ScimTenant, scimTenant } from '../scim/scim-helpers.ts';
import type { Door } from './doors.ts';

/** A real service sending through a real SMTP listener, with one organisation and its SCIM connection. */
export interface VerificationHarness {
  smtp: SmtpListener;
  t: TestService;
  org: TestOrg;
  scim: ScimTenant;
  /** A user provisioned over SCIM with a work email (mixed case, as directories keep it). */
  provisioned(): Promise<{ id: string; email: string }>;
  /** Initiates for a new identity through `door` and reads the code out of the email received. */
  started(door: Door): Promise<{ identity: { id: string; email: string }; id: string; code: string }>;
  close(): Promise<void>;
}

export async function startVerificationHarness(
  backend: Backend,
  options: { smtp?: SmtpListenerOptions; env?: Record<string, string> } = {},
): Promise<VerificationHarness> {
  const smtp = await startSmtpListener(options.smtp);
  const t = await startTestService(backend, { TESSERA_SMTP_URL: smtp.url, TESSERA_SMTP_FROM: 'verify@example.org', ...options.env });
  const org = await t.org();
  const scim = await scimTenant(t, org);
  const provisioned = async () => {
    const email = `Person.${Math.random().toString(36).slice(2)}@Example.com`;
    const created = await scim.call('POST', '/Users', scimUser(email));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return { id: created.body.id as string, email };
  };
  return {
    smtp,
    t,
    org,
    scim,
    provisioned,
    async started(door) {
      const identity = await provisioned();
      const response = await door.initiate({ connection_id: scim.connectionId, identity_id: identity.id });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      const mail = await smtp.nextMessage();
      // SMTP domains are case-insensitive, and the transport lower-cases them in the envelope.
      assert.deepEqual(
        mail.rcptTo.map((to) => to.toLowerCase()),
        [identity.email.toLowerCase()],
        'sent to the address the directory holds',
      );
      return { identity, id: response.body.result.verification_id as string, code: codeFrom(mail) };
    },
    async close() {
      await t.close();
      await smtp.close();
    },
  };
}

/** A SCIM User with one work email, as a provider creates it. */
export function scimUser(email: string) {
  return { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: email, emails: [{ value: email, type: 'work', primary: true }], active: true };
}

/** A code that is not `code`. */
export function wrongCode(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}
