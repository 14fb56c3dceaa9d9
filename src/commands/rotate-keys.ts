import { MAX_TOKEN_LIFETIME_SECONDS } from '../config/defaults.ts';
import { loadServiceConfig } from '../config/service-config.ts';
import { KeyRing } from '../oauth/keys/key-ring.ts';
import { openStore } from '../store/open-store.ts';
import { type Command, DATABASE_ENVIRONMENT, parseOptions } from './command.ts';
import { warnOfUnknownVariables } from './variable-warnings.ts';

export const rotateKeysCommand: Command = {
  name: 'admin rotate-keys',
  help: `Usage: tessera admin rotate-keys

Generates a new signing key (ES256), makes it the one new tokens are signed with, and
retires the current one. The retired key stays in the JWKS, so tokens it signed keep
verifying until they expire (at most ${MAX_TOKEN_LIFETIME_SECONDS / 3600} h). Running replicas switch to the new key
within 30 seconds. Uses the same database and TESSERA_SECRET as "tessera service".

Options:
  -h, --help                  this text

Environment:
${DATABASE_ENVIRONMENT}
  TESSERA_SECRET              the service's key-encryption secret (required unless TESSERA_DEV=1)
  TESSERA_DEV=1               development mode: the fixed development secret
`,
  async run(args) {
    const options = parseOptions('admin rotate-keys', args, {});
    if (options.help) return void process.stdout.write(rotateKeysCommand.help);
    warnOfUnknownVariables('admin rotate-keys');
    const { config } = loadServiceConfig();
    const { store } = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
    try {
      const ring = new KeyRing(store, config.secret);
      // Opening the current key first proves this is the service's secret: a key sealed with
      // a mistyped one would stop every replica from signing.
      await ring.init();
      const next = await ring.generate();
      await store.rotateSigningKey(next, Date.now());
      process.stdout.write(`New signing key ${next.kid} is active; the previous one stays published until the tokens it signed expire.\n`);
    } finally {
      await store.close();
    }
  },
};
