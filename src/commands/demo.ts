import { loadServiceConfig } from '../config/service-config.ts';
import { startService } from '../service.ts';
import { createOrganization, replaceAdminKey } from '../organizations/create-organization.ts';
import { describe } from '../store/open-store.ts';
import { newId } from '../crypto/ids.ts';
import type { Store } from '../store/store.ts';
import { closeOnSignals, parseOptions, type Command } from './command.ts';
import { startEchoUpstream } from '../demo/echo-upstream.ts';
import { prepareDemoDelegation, startDemoGateway } from '../demo/demo-gateway.ts';

const DEMO_ORG = 'demo';
const DEMO_KEY = 'npm-start';
const DEMO_PERSON = 'ada@example.com';

export const demoCommand: Command = {
  name: 'demo',
  help: `Usage: tessera demo        (npm start)

Starts the service in development mode on the embedded SQLite database
(./data/tessera.db), creates the organisation "${DEMO_ORG}" with one person on the first run
(and finds them again on later runs), issues a fresh admin key, and starts the gateway
(GATEWAY_PORT, default 8000; admin GATEWAY_ADMIN_PORT, 8001) with one token-exchange
plugin in front of an echo upstream. Prints a curl for the API and one through the
gateway that shows the delegated token the upstream received. Every variable of "tessera service" still applies; the demo
only changes these defaults: TESSERA_DEV=1, TESSERA_LOG_LEVEL=warn.
`,
  async run(args) {
    const options = parseOptions('demo', args, {});
    if (options.help) return void process.stdout.write(demoCommand.help);
    // An empty variable counts as unset, so it must not erase the demo's defaults either.
    const given = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== ''));
    const { config, warnings } = loadServiceConfig({ TESSERA_DEV: '1', TESSERA_LOG_LEVEL: 'warn', ...given });
    const service = await startService(config);
    const { orgId, apiKey, created, personId } = await ensureDemoOrganization(service.store);
    const { client, personToken } = await prepareDemoDelegation(service, orgId, apiKey, personId);
    const echo = await startEchoUpstream();
    const gateway = await startDemoGateway(service.url, echo.url, client);
    closeOnSignals(async () => {
      await gateway.close();
      await echo.close();
      await service.close();
    });
    const curl = `curl -s ${service.url}/persons -H 'Service-OrgID: ${orgId}' -H 'Service-API-Key: ${apiKey}'`;
    const delegated = `curl -s ${gateway.url}/orders/42 -H 'Authorization: Bearer ${personToken}'`;
    process.stdout.write(
      [
        '',
        'Tessera demo is running',
        `  service       ${service.url}  (API reference: ${service.url}/openapi.json, health: ${service.url}/healthz)`,
        `  database      ${describe(config.databaseUrl)}`,
        `  organisation  "${DEMO_ORG}" ${orgId}${created ? ' (created now)' : ' (from an earlier run)'}`,
        `  admin key     ${apiKey}`,
        '                (shown once; each start issues a new one and revokes the previous)',
        ...warnings.map((w) => `  warning       ${w}`),
        '',
        `  gateway       ${gateway.url}  (admin: ${gateway.adminUrl}/healthz) → echo upstream ${echo.url}`,
        '',
        'List the persons of the demo organisation:',
        `  ${curl}`,
        '',
        "Call the upstream through the gateway as ada (a person JWT); the echo shows what arrived:",
        'the delegated token, with the gateway\'s client in its act claim, and not ada\'s own token.',
        `  ${delegated}`,
        '',
        'Press Ctrl+C to stop.',
        '',
      ].join('\n'),
    );
  },
};

async function ensureDemoOrganization(store: Store): Promise<{ orgId: string; apiKey: string; created: boolean; personId: string }> {
  const existing = await store.getOrganizationByName(DEMO_ORG);
  if (existing) {
    const person = await store.findPersonByHandle(existing.id, { type: 'email_address', value: DEMO_PERSON });
    if (!person) throw new Error(`the demo organisation has lost ${DEMO_PERSON}; delete ./data to start the demo afresh`);
    return { orgId: existing.id, apiKey: await replaceAdminKey(store, existing.id, DEMO_KEY), created: false, personId: person.id };
  }
  const { org, apiKey } = await createOrganization(store, DEMO_ORG, DEMO_KEY);
  const personId = newId('per');
  await store.createPerson({
    id: personId,
    orgId: org.id,
    handles: [{ type: 'email_address', value: DEMO_PERSON }],
    roles: ['verifier'],
    console: true,
    createdAt: Date.now(),
  });
  return { orgId: org.id, apiKey, created: true, personId };
}
