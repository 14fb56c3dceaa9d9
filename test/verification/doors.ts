import assert from 'node:assert/strict';
import { signedInWithTwoFactors } from '../helpers/authn.ts';
import type { Response, TestOrg, TestService } from '../helpers/service.ts';

/** One of the two front doors of email verification, driven as its callers drive it. */
export interface Door {
  name: 'integration' | 'helpdesk';
  initiate(body: unknown): Promise<Response>;
  /** `operator`: whose email the integration asserts, or whose person JWT calls the helpdesk. */
  verify(body: Record<string, unknown>, operator: string): Promise<Response>;
}

export interface Operators {
  verifier: string;
  /** A console person without the verifier role. */
  nonVerifier: string;
}

/** Makes the verifier and the non-verifier, and both doors for them. */
export async function doorsOf(t: TestService, org: TestOrg): Promise<{ doors: Door[]; operators: Operators; integrationKey: string }> {
  const tag = Math.random().toString(36).slice(2);
  const operators = { verifier: `verifier.${tag}@example.org`, nonVerifier: `agent.${tag}@example.org` };
  const tokens = new Map<string, string>();
  for (const [email, roles] of [
    [operators.verifier, ['verifier']],
    [operators.nonVerifier, []],
  ] as const) {
    const created = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: email }], roles, console: true } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // Signed in with two factors, as the helpdesk door needs of everyone (design §5).
    tokens.set(email, await signedInWithTwoFactors(t, org, created.body.result.id, email));
  }
  const key = await t.call('POST', '/organizations/api-keys', { as: org, body: { name: `crm-${tag}`, kind: 'integration' } });
  assert.equal(key.status, 201, JSON.stringify(key.body));
  const integrationKey: string = key.body.result.api_key;
  const asIntegration = { 'service-orgid': org.orgId, 'service-api-key': integrationKey };
  const asPerson = (email: string) => ({ 'service-orgid': org.orgId, authorization: `Bearer ${tokens.get(email) ?? 'unknown'}` });
  const doors: Door[] = [
    {
      name: 'integration',
      initiate: (body) => t.call('POST', '/integrations/email-verifications', { as: asIntegration, body }),
      verify: (body, operator) =>
        t.call('POST', '/integrations/email-verifications/verify', {
          as: asIntegration,
          body: { ...body, operator: { email: operator, assertion: 'integration_asserted' } },
        }),
    },
    {
      name: 'helpdesk',
      initiate: (body) => t.call('POST', '/helpdesk/email-verifications', { as: asPerson(operators.verifier), body }),
      verify: (body, operator) => t.call('POST', '/helpdesk/email-verifications/verify', { as: asPerson(operator), body }),
    },
  ];
  return { doors, operators, integrationKey };
}
