import { delegatedCurl, printBanner } from '../demo/demo-banner.ts';
import { prepareDemoConsole } from '../demo/demo-console.ts';
import { demoGatewayPorts, prepareDemoDelegation, startDemoGateway } from '../demo/demo-gateway.ts';
import { DEMO_ORG, DEMO_PERSON, ensureDemoOrganization } from '../demo/demo-organization.ts';
import { type DemoState, demoSettings, readDemoState, runningDemo, writeDemoState } from '../demo/demo-state.ts';
import { demoTokenCommand, mintDemoToken } from '../demo/demo-token.ts';
import { DEMO_IDENTITY, prepareDemoVerification } from '../demo/demo-verification.ts';
import { startEchoUpstream } from '../demo/echo-upstream.ts';
import { assertPortsFree, explainListenError } from '../runtime/ports.ts';
import { startService } from '../service/service.ts';
import { describe } from '../store/open-store.ts';
import { startTracing } from '../telemetry/start-tracing.ts';
import { type Command, closeOnSignals, DATABASE_ENVIRONMENT, parseOptions } from './command.ts';

export const demoCommand: Command = {
  name: 'demo',
  help: `Usage: tessera demo        (npm start)

Starts the service in development mode on the embedded SQLite database, the
organisation "${DEMO_ORG}" with one person, and the gateway with one token-exchange
plugin in front of an echo upstream, and prints a curl for the API and one through
the gateway that shows the delegated token the upstream received (its person JWT
comes from "tessera demo token", fresh on every run). For email
verification it keeps a SCIM directory holding ${DEMO_IDENTITY} and an integration
key, and prints the two curls of one verification; the email with the code is
written to this terminal. The console (/console/) takes ${DEMO_PERSON}'s sign-in, printed
too, with passkeys bound to localhost.

Every start reuses the organisation, its admin key, the gateway's client secret, the
directory's SCIM token, the integration key and the console password (kept, mode 0600, in a file beside the
database: <database>.demo.json), so running it again never breaks a demo that still runs. It checks that every port is free before it
changes anything (naming every busy one), and says so when a demo of the same database is
already running, with the curl through the gateway again.

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
    const { given, config, warnings, statePath } = demoSettings(process.env);
    const gatewayPorts = demoGatewayPorts(given);
    const tokenCommand = demoTokenCommand(config.databaseUrl, given);
    const kept = readDemoState(statePath);
    const running = await runningDemo(kept);
    if (running) {
      throw new Error(
        `a demo of this database is already running (process ${running.pid}): service ${running.serviceUrl}, gateway ${running.gatewayUrl}. ` +
          "The commands it printed still work; the one through the gateway takes a fresh token of ada's on every run, from the repository:\n" +
          `  ${delegatedCurl(running.gatewayUrl, { command: tokenCommand })}\n` +
          `Stop it first (Ctrl+C in its terminal, or kill ${running.pid}), or give this one another database (TESSERA_DATA_DIR or TESSERA_DATABASE).`,
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
    const tracing = await startTracing(config.tracing, 'tessera-demo');
    const service = await startService(config, { revealCodes: true, ...(mailLogLevel ? { mailLogLevel } : {}) }).catch((error: unknown) => {
      throw explainListenError(error, ports);
    });
    const echo = await startEchoUpstream();
    let gatewayStarted = false;
    try {
      const { orgId, apiKey, created, personId } = await ensureDemoOrganization(service, kept);
      const client = await prepareDemoDelegation(service, orgId, apiKey, kept?.client);
      const verification = await prepareDemoVerification(service, orgId, apiKey, kept?.orgId === orgId ? kept.verification : undefined);
      const consoleAccess = await prepareDemoConsole(service, orgId, apiKey, personId, kept?.orgId === orgId ? kept.console : undefined);
      const state: DemoState = { orgId, adminKey: apiKey, personId, client, verification, console: consoleAccess };
      writeDemoState(statePath, state);
      const gateway = await startDemoGateway(given, service.url, echo.url, client);
      gatewayStarted = true;
      writeDemoState(statePath, { ...state, running: { pid: process.pid, serviceUrl: service.url, gatewayUrl: gateway.url } });
      closeOnSignals(async () => {
        writeDemoState(statePath, state);
        await gateway.close();
        await echo.close();
        await service.close();
      }, tracing);
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
        // Only a demo with kept state can be found by "demo token"; one in memory prints its token.
        personToken: statePath ? { command: tokenCommand } : { value: await mintDemoToken(service.url, orgId, apiKey, personId) },
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
