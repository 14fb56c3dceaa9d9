import { loadServiceConfig } from '../config/service-config.ts';
import { startService } from '../service.ts';
import { createOrganization, replaceAdminKey } from '../organizations/create-organization.ts';
import { describe } from '../store/open-store.ts';
import { newId } from '../crypto/ids.ts';
import type { Store } from '../store/store.ts';
import { closeOnSignals, parseOptions, type Command } from './command.ts';

const DEMO_ORG = 'demo';
const DEMO_KEY = 'npm-start';
const DEMO_PERSON = 'ada@example.com';

export const demoCommand: Command = {
  name: 'demo',
  summary: 'run the demo stack on the embedded database (what "npm start" runs)',
  help: `Usage: tessera demo        (npm start)

Starts the service in development mode on the embedded SQLite database
(./data/tessera.db), creates the organisation "${DEMO_ORG}" with one person on the first run
(and finds them again on later runs), issues a fresh admin key, and prints a curl
command that uses it. Every variable of "tessera service" still applies; the demo
only changes these defaults: TESSERA_DEV=1, TESSERA_LOG_LEVEL=warn.
`,
  async run(args) {
    const options = parseOptions('demo', args, {});
    if (options.help) return void process.stdout.write(demoCommand.help);
    // An empty variable counts as unset, so it must not erase the demo's defaults either.
    const given = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== ''));
    const { config, warnings } = loadServiceConfig({ TESSERA_DEV: '1', TESSERA_LOG_LEVEL: 'warn', ...given });
    const service = await startService(config);
    closeOnSignals(() => service.close());
    const { orgId, apiKey, created } = await ensureDemoOrganization(service.store);
    const curl = `curl -s ${service.url}/persons -H 'Service-OrgID: ${orgId}' -H 'Service-API-Key: ${apiKey}'`;
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
        'List the persons of the demo organisation:',
        `  ${curl}`,
        '',
        'Press Ctrl+C to stop.',
        '',
      ].join('\n'),
    );
  },
};

async function ensureDemoOrganization(store: Store): Promise<{ orgId: string; apiKey: string; created: boolean }> {
  const existing = await store.getOrganizationByName(DEMO_ORG);
  if (existing) return { orgId: existing.id, apiKey: await replaceAdminKey(store, existing.id, DEMO_KEY), created: false };
  const { org, apiKey } = await createOrganization(store, DEMO_ORG, DEMO_KEY);
  await store.createPerson({
    id: newId('per'),
    orgId: org.id,
    handles: [{ type: 'email_address', value: DEMO_PERSON }],
    roles: ['verifier'],
    console: true,
    createdAt: Date.now(),
  });
  return { orgId: org.id, apiKey, created: true };
}
