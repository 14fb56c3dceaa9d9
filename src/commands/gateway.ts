import { pino } from 'pino';
import { loadGatewayConfig } from '../gateway/config/gateway-config.ts';
import { startGateway } from '../gateway/proxy/proxy-server.ts';
import { buildPlugins } from '../gateway/build-plugins.ts';
import { closeOnSignals, parseOptions, type Command } from './command.ts';

export const gatewayCommand: Command = {
  name: 'gateway',
  help: `Usage: tessera gateway [--config FILE]

Runs the reverse proxy. Configured by GATEWAY_* environment variables, or by a YAML
or JSON file with the same structure (--config); every key is in docs/gateway.md.
The most used:

  GATEWAY_PORT                     proxy port (default 8000)
  GATEWAY_ADMIN_PORT               /healthz and /metrics (default 8001)
  GATEWAY_URLS_<i>_PATTERN         host[:port]/path, * as wildcard, first match wins
  GATEWAY_URLS_<i>_TARGET          upstream URL of that rule
  GATEWAY_DEFAULT_TARGET           upstream when no rule matches
  GATEWAY_PLUGINS_<N>_TYPE=token-exchange and GATEWAY_PLUGINS_<N>_PARAMETERS_<FIELD>

An invalid configuration stops start-up with one message naming the key.
`,
  async run(args) {
    const options = parseOptions('gateway', args, { config: { type: 'string' } });
    if (options.help) return void process.stdout.write(gatewayCommand.help);
    const config = loadGatewayConfig(options.config ? { file: options.config } : { env: process.env });
    const log = pino({ level: config.logLevel });
    const gateway = await startGateway(config, await buildPlugins(config), log);
    log.info({ url: gateway.url, admin: gateway.adminUrl, plugins: config.plugins.map((p) => p.id) }, 'tessera gateway started');
    closeOnSignals(() => gateway.close());
  },
};
