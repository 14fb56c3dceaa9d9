import { loadServiceConfig } from '../config/service-config.ts';
import { consoleUrl, prepareDemoConsole } from '../demo/demo-console.ts';
import { demoGatewayPorts, prepareDemoDelegation, startDemoGateway } from '../demo/demo-gateway.ts';
import { DEMO_ORG, DEMO_PERSON, ensureDemoOrganization } from '../demo/demo-organization.ts';
import { type DemoState, demoStatePath, readDemoState, runningDemo, writeDemoState } from '../demo/demo-state.ts';
import { DEMO_IDENTITY, type DemoVerification, prepareDemoVerification } from '../demo/demo-verification.ts';
import { startEchoUpstream } from '../demo/echo-upstream.ts';
import { assertPortsFree, explainListenError } from '../runtime/ports.ts';
import { startService } from '../service/service.ts';
import { describe } from '../store/open-store.ts';
import { type Command, closeOnSignals, DATABASE_ENVIRONMENT, parseOptions } from './command.ts';

export const demoCommand: Command = {
  name: 'demo',
  help: `Usage: tessera demo        (npm start)

Starts the service in development mode on the embedded SQLite database, the
organisation "${DEMO_ORG}" with one person, and the gateway with one token-exchange
plugin in front of an echo upstream, and prints a curl for the API and one through
the gateway that shows the delegated token the upstream received. For email
verification it keeps a SCIM directory holding ${DEMO_IDENTITY} and an integration
key, and prints the two curls of one verification; the email with the code is
written to this terminal. The console (/console/) takes ${DEMO_PERSON}'s sign-in, printed
too, with passkeys bound to localhost.

Every start reuses the organisation, its admin key, the gateway's client secret, the
directory's SCIM token, the integration key and the console password (kept, mode 0600, in a file beside the
database: <database>.demo.json), so running it again never breaks a demo that still runs. It checks that every port is free before it
changes anything, and says so when a demo of the same database is already running.

Options:
  -h, --help                  this text

Environment (every variable of "tessera service" applies):
  TESSERA_PORT                service port (default 8080)
  GATEWAY_PORT                gateway port (default 8000)
  GATEWAY_ADMIN_PORT          gateway admin port: /healthz, /readyz, /metrics (default 8001)
  GATEWAY_LOG_LEVEL           the gateway's log level (default warn)
${DATABASE_ENVIRONMENT}
  TESSERA_DEV                 default 1 for the demo
  TESSERA_LOG_LEVEL           default warn for the demo
`,
  async run(args) {
    const options = parseOptions('demo', args, {});
    if (options.help) return void process.stdout.write(demoCommand.help);
    // An empty variable counts as unset, so it must not erase the demo's defaults either.
    const given = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== ''));
    const { config, warnings } = loadServiceConfig({ TESSERA_DEV: '1', TESSERA_LOG_LEVEL: 'warn', ...given });
    const gatewayPorts = demoGatewayPorts(given);
    const statePath = demoStatePath(config.databaseUrl, given);
    const kept = readDemoState(statePath);
    const running = await runningDemo(kept);
    if (running) {
      throw new Error(
        `a demo of this database is already running (process ${running.pid}): service ${running.serviceUrl}, gateway ${running.gatewayUrl}. ` +
          `The commands it printed still work. Stop it first (Ctrl+C in its terminal, or kill ${running.pid}), or give this one another database (TESSERA_DATA_DIR or TESSERA_DATABASE).`,
      );
    }
    // Before anything is written: a busy port must leave the database and the credentials as they were.
    const ports = [
      { setting: 'TESSERA_PORT', host: config.host, port: config.port },
      { setting: gatewayPorts.keys.port, host: gatewayPorts.host, port: gatewayPorts.port },
      { setting: gatewayPorts.keys.adminPort, host: gatewayPorts.host, port: gatewayPorts.adminPort },
    ];
    await assertPortsFree(ports);
    // The development transport writes each email, code shown, at info: above the demo's log level.
    const mailLogLevel = config.logLevel === 'silent' ? undefined : 'info';
    const service = await startService(config, { revealCodes: true, ...(mailLogLevel ? { mailLogLevel } : {}) }).catch((error: unknown) => {
      throw explainListenError(error, ports);
    });
    const echo = await startEchoUpstream();
    let gatewayStarted = false;
    try {
      const { orgId, apiKey, created, personId } = await ensureDemoOrganization(service, kept);
      const { client, personToken } = await prepareDemoDelegation(service, orgId, apiKey, personId, kept?.client);
      const verification = await prepareDemoVerification(service, orgId, apiKey, kept?.orgId === orgId ? kept.verification : undefined);
      const consoleAccess = await prepareDemoConsole(service, orgId, apiKey, personId, kept?.orgId === orgId ? kept.console : undefined);
      const state: DemoState = { orgId, adminKey: apiKey, client, verification, console: consoleAccess };
      writeDemoState(statePath, state);
      const gateway = await startDemoGateway(given, service.url, echo.url, client);
      gatewayStarted = true;
      writeDemoState(statePath, { ...state, running: { pid: process.pid, serviceUrl: service.url, gatewayUrl: gateway.url } });
      closeOnSignals(async () => {
        writeDemoState(statePath, state);
        await gateway.close();
        await echo.close();
        await service.close();
      });
      printBanner({
        serviceUrl: service.url,
        gatewayUrl: gateway.url,
        adminUrl: gateway.adminUrl,
        echoUrl: echo.url,
        database: describe(config.databaseUrl),
        statePath,
        orgId,
        apiKey,
        created,
        personToken,
        verification,
        consolePassword: consoleAccess.password,
        mailer: service.mailer.description,
        warnings,
      });
    } catch (error) {
      if (!gatewayStarted) {
        await echo.close();
        await service.close();
      }
      throw error;
    }
  },
};

function printBanner(d: {
  serviceUrl: string;
  gatewayUrl: string;
  adminUrl: string;
  echoUrl: string;
  database: string;
  statePath: string | undefined;
  orgId: string;
  apiKey: string;
  created: boolean;
  personToken: string;
  verification: DemoVerification;
  consolePassword: string;
  mailer: string;
  warnings: string[];
}): void {
  const curl = `curl -s ${d.serviceUrl}/persons -H 'Service-OrgID: ${d.orgId}' -H 'Service-API-Key: ${d.apiKey}'`;
  const delegated = `curl -s ${d.gatewayUrl}/orders/42 -H 'Authorization: Bearer ${d.personToken}'`;
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
      `  ${delegated}`,
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
