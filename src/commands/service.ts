import { loadServiceConfig } from '../config/service-config.ts';
import { startService } from '../service.ts';
import { closeOnSignals, parseOptions, type Command } from './command.ts';

export const serviceCommand: Command = {
  name: 'service',
  help: `Usage: tessera service

Runs the identity service. Configured by environment variables only; every one is
listed with its default in docs/configuration.md. The most used:

  TESSERA_PORT       port to listen on (default 8080)
  TESSERA_HOST       address to bind (default 127.0.0.1)
  TESSERA_DATABASE   sqlite:PATH or sqlite::memory: (default sqlite:./data/tessera.db)
  DATABASE_URL       postgres://… (wins over TESSERA_DATABASE; for several replicas)
  TESSERA_SECRET     key-encryption secret, 32+ characters (required unless TESSERA_DEV=1)
  TESSERA_DEV=1      development mode: fixed secret, loopback http JWKS URLs allowed
`,
  async run(args) {
    const options = parseOptions('service', args, {});
    if (options.help) return void process.stdout.write(serviceCommand.help);
    const { config, warnings } = loadServiceConfig();
    const service = await startService(config);
    for (const warning of warnings) service.app.log.warn(warning);
    service.app.log.info({ url: service.url, issuer: service.issuer, database: service.store.dialect }, 'tessera service started');
    closeOnSignals(() => service.close());
  },
};
