import { DEMO_PERSON } from '../demo/demo-organization.ts';
import { demoSettings, readDemoState, runningDemo } from '../demo/demo-state.ts';
import { mintDemoToken } from '../demo/demo-token.ts';
import { describe } from '../store/open-store.ts';
import { type Command, DATABASE_ENVIRONMENT, parseOptions } from './command.ts';

export const demoTokenCommand: Command = {
  name: 'demo token',
  help: `Usage: tessera demo token

Prints a fresh person JWT of ${DEMO_PERSON} (scope orders:read, valid for an hour),
minted by the running demo of this database with its kept admin key, and nothing
else: the demo's curl through the gateway takes it in, so it never goes stale:

  curl -s http://127.0.0.1:8000/orders/42 -H "Authorization: Bearer $(npm run --silent tessera -- demo token)"

It finds the demo as "tessera demo" does, by its database: give it the same
database variables as the demo was started with.

Options:
  -h, --help                  this text

Environment:
${DATABASE_ENVIRONMENT}
`,
  async run(args) {
    const options = parseOptions('demo token', args, {});
    if (options.help) return void process.stdout.write(demoTokenCommand.help);
    const { config, statePath } = demoSettings(process.env);
    const kept = readDemoState(statePath);
    const running = await runningDemo(kept);
    if (!kept || !running)
      throw new Error(
        `no demo of ${describe(config.databaseUrl)} is running: start one with "npm start", ` +
          'or give this command the TESSERA_DATA_DIR, TESSERA_DATABASE or DATABASE_URL the demo was started with',
      );
    process.stdout.write(`${await mintDemoToken(running.serviceUrl, kept.orgId, kept.adminKey, kept.personId)}\n`);
  },
};
