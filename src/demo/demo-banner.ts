import { consoleUrl } from './demo-console.ts';
import { DEMO_ORG, DEMO_PERSON } from './demo-organization.ts';
import { DEMO_IDENTITY, type DemoVerification } from './demo-verification.ts';

/**
 * The curl through the gateway. With a command that mints ada's token it never goes stale (a
 * person JWT lives an hour); a demo in memory, which no other process can find, prints the token.
 */
export function delegatedCurl(gatewayUrl: string, token: { command: string } | { value: string }): string {
  const bearer = 'command' in token ? `"Authorization: Bearer $(${token.command})"` : `'Authorization: Bearer ${token.value}'`;
  return `curl -s ${gatewayUrl}/orders/42 -H ${bearer}`;
}

export interface BannerFacts {
  serviceUrl: string;
  gatewayUrl: string;
  adminUrl: string;
  echoUrl: string;
  database: string;
  statePath: string | undefined;
  orgId: string;
  apiKey: string;
  created: boolean;
  personToken: { command: string } | { value: string };
  verification: DemoVerification;
  consolePassword: string;
  mailer: string;
  warnings: string[];
}

export function printBanner(d: BannerFacts): void {
  const curl = `curl -s ${d.serviceUrl}/persons -H 'Service-OrgID: ${d.orgId}' -H 'Service-API-Key: ${d.apiKey}'`;
  const { connectionId, integrationKey } = d.verification;
  const asIntegration = `-H 'Service-OrgID: ${d.orgId}' -H 'Service-API-Key: ${integrationKey}' -H 'Content-Type: application/json'`;
  const initiate = `curl -s -X POST ${d.serviceUrl}/integrations/email-verifications ${asIntegration} -d '${JSON.stringify({ connection_id: connectionId, email: DEMO_IDENTITY })}'`;
  const verifyBody = {
    verification_id: '<verification_id>',
    code: '<code>',
    connection_id: connectionId,
    operator: { email: DEMO_PERSON, assertion: 'integration_asserted' },
  };
  const verify = `curl -s -X POST ${d.serviceUrl}/integrations/email-verifications/verify ${asIntegration} -d '${JSON.stringify(verifyBody)}'`;
  const logged = d.mailer.startsWith('the service log');
  process.stdout.write(
    [
      '',
      'Tessera demo is running',
      `  service       ${d.serviceUrl}  (API reference: ${d.serviceUrl}/openapi.json, health: ${d.serviceUrl}/healthz)`,
      `  database      ${d.database}`,
      `  organisation  "${DEMO_ORG}" ${d.orgId}${d.created ? ' (created now)' : ' (from an earlier run)'}`,
      `  admin key     ${d.apiKey}`,
      d.statePath
        ? `                (kept in ${d.statePath}, mode 0600; the next start reuses it)`
        : '                (the database is in memory: the next start makes new ones)',
      ...d.warnings.map((w) => `  warning       ${w}`),
      '',
      `  gateway       ${d.gatewayUrl}  (admin: ${d.adminUrl}/healthz, /readyz) → echo upstream ${d.echoUrl}`,
      '',
      'List the persons of the demo organisation:',
      `  ${curl}`,
      '',
      'Call the upstream through the gateway as ada (a person JWT); the echo shows what arrived:',
      "the delegated token, with the gateway's client in its act claim, and not ada's own token.",
      'command' in d.personToken
        ? 'Run it in the repository: "demo token" prints a fresh JWT of hers (valid for an hour) each time.'
        : 'Her JWT is valid for an hour; the database is in memory, so the next start prints a new one.',
      `  ${delegatedCurl(d.gatewayUrl, d.personToken)}`,
      '',
      `Verify ${DEMO_IDENTITY}'s email address, as an integration: the directory "demo directory" (${connectionId},`,
      'pushed over SCIM) holds her. Ask for a code, sent to the address the directory holds:',
      `  ${initiate}`,
      logged
        ? 'Her email is written here, in the log line "email not sent (TESSERA_SMTP_URL is unset): logged instead", with'
        : `Her email goes out through ${d.mailer}, with`,
      `"Your verification code is: …". Put that code and the verification_id in, for the operator ${DEMO_PERSON} (a verifier):`,
      `  ${verify}`,
      '',
      `Or do it in the console, signed in as ${DEMO_PERSON} (a verifier and administrator); open, on this machine:`,
      `  ${consoleUrl(d.serviceUrl)}`,
      `  email ${DEMO_PERSON}   password ${d.consolePassword}`,
      'Administrators sign in with two factors, so the console asks her to add a passkey first; then sign out,',
      'and sign in again with the passkey alone (leave the email empty).',
      '',
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
}
