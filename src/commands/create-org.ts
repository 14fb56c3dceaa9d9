import { cliOperator } from '../audit/admin-events.ts';
import { loadServiceConfig } from '../config/service-config.ts';
import { createOrganization } from '../organizations/create-organization.ts';
import { describe, openStore } from '../store/open-store.ts';
import { type Command, DATABASE_ENVIRONMENT, parseOptions, UsageError } from './command.ts';
import { warnOfUnknownVariables } from './variable-warnings.ts';

export const createOrgCommand: Command = {
  name: 'admin create-org',
  help: `Usage: tessera admin create-org --name NAME [--json]

Creates an organisation in the database the service uses (the same variables as
"tessera service") and prints its id and its first admin API key. The key is shown
only now: Tessera stores only its hash.

Options:
  --name NAME                 organisation name, unique, 1 to 100 characters
  --json                      print {"org_id": …, "api_key": …} for scripts
  -h, --help                  this text

Environment:
${DATABASE_ENVIRONMENT}
  TESSERA_SECRET              not needed: without it the command runs as with TESSERA_DEV=1
`,
  async run(args) {
    const options = parseOptions('admin create-org', args, { name: { type: 'string' }, json: { type: 'boolean' } });
    if (options.help) return void process.stdout.write(createOrgCommand.help);
    if (options.name === undefined) throw new UsageError('--name: is required\nRun "tessera admin create-org --help" for usage.');
    warnOfUnknownVariables('admin create-org');
    // The secret is not needed to create an organisation; development mode spares asking for it.
    const { config } = loadServiceConfig({ ...process.env, TESSERA_DEV: process.env.TESSERA_SECRET ? process.env.TESSERA_DEV : '1' });
    const { store } = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
    try {
      const { org, apiKey } = await createOrganization(store, options.name, { operator: cliOperator() });
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ org_id: org.id, api_key: apiKey })}\n`);
      } else {
        process.stdout.write(
          `Created organisation "${org.name}"\n  org id:    ${org.id}\n  admin key: ${apiKey}\n  database:  ${describe(config.databaseUrl)}\n\nThe key is shown only now. Send both on every call:\n  -H 'Service-OrgID: ${org.id}' -H 'Service-API-Key: ${apiKey}'\n`,
        );
      }
    } finally {
      await store.close();
    }
  },
};
