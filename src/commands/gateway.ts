import cluster from 'node:cluster';
import { pino } from 'pino';
import { loadGatewaySetup } from '../gateway/config/gateway-config.ts';
import { gatewayStartupWarnings } from '../gateway/startup-warnings.ts';
import { assertPortsFree } from '../runtime/ports.ts';
import { primaryReport } from '../runtime/primary-report.ts';
import { runWorkers } from '../runtime/run-workers.ts';
import { traceFields } from '../telemetry/spans.ts';
import { startTracing } from '../telemetry/start-tracing.ts';
import { type Command, closeOnSignals, parseOptions } from './command.ts';

export const gatewayCommand: Command = {
  name: 'gateway',
  help: `Usage: tessera gateway [--config FILE]

Runs the reverse proxy. Configured by a YAML or JSON file (--config) and by GATEWAY_*
environment variables with the same structure; a variable wins over the file's value.
Every key is in docs/gateway.md.

Options:
  --config FILE                    YAML or JSON file; GATEWAY_* variables override it
  -h, --help                       this text

Environment (the most used):
  GATEWAY_PORT                     proxy port (default 8000)
  GATEWAY_ADMIN_PORT               /healthz, /readyz and /metrics (default 8001)
  GATEWAY_HOST                     address to bind (default 127.0.0.1)
  GATEWAY_URLS_<i>_PATTERN         host[:port]/path, * as wildcard, first match wins
  GATEWAY_URLS_<i>_TARGET          upstream URL of that rule
  GATEWAY_DEFAULT_TARGET           upstream when no rule matches
  GATEWAY_PLUGINS_<N>_TYPE=token-exchange and GATEWAY_PLUGINS_<N>_PARAMETERS_<FIELD>
  GATEWAY_LOG_LEVEL                fatal … trace, silent (default info)
  GATEWAY_WORKERS                  processes on both ports: 1 to 64, or auto (default 1)
  GATEWAY_FORWARD_AUTH_PORT        also answer authorization checks from your own proxy
                                   (nginx auth_request, Caddy, Traefik, Envoy, HAProxy);
                                   see docs/forward-auth.md
  OTEL_EXPORTER_OTLP_ENDPOINT      send OpenTelemetry traces there (the other OTEL_*
                                   variables apply); see docs/operations.md

An invalid value, or an unknown key inside a known structure, stops start-up with one
message naming the key. A GATEWAY_* variable that configures nothing is warned about,
with the closest valid name. A plugin whose oauth_client_id/secret the service refuses
stops start-up; a service that does not answer yet leaves /readyz at 503 until it does.
`,
  async run(args) {
    const options = parseOptions('gateway', args, { config: { type: 'string' } });
    if (options.help) return void process.stdout.write(gatewayCommand.help);
    const { config, unknownVariables, tracing: tracingSettings } = loadGatewaySetup({ env: process.env, ...(options.config ? { file: options.config } : {}) });
    const log = pino({ level: config.logLevel, mixin: traceFields });
    // Warnings go to the log and to stderr: a log level of error or a log shipped elsewhere
    // must not hide from the operator at the terminal that a setting does nothing. Once,
    // by the first process, not again by each worker.
    for (const warning of cluster.isPrimary ? gatewayStartupWarnings(config, unknownVariables) : []) {
      log.warn(warning);
      process.stderr.write(`tessera gateway: warning: ${warning}\n`);
    }
    // Both ports before anything starts, so two busy ones are named in one message, not one per try.
    if (cluster.isPrimary)
      await assertPortsFree([
        { setting: config.keys.port, host: config.host, port: config.port },
        { setting: config.keys.adminPort, host: config.host, port: config.adminPort },
        ...(config.forwardAuth ? [{ setting: config.forwardAuth.portKey, host: config.forwardAuth.host, port: config.forwardAuth.port }] : []),
      ]);
    // The proxy and the admin port (and the forward-auth port): a worker is ready once all listen.
    if (!(await runWorkers(config.workers, config.forwardAuth ? 3 : 2, primaryReport('tessera gateway', config.logLevel)))) return;
    // Imported here, not above: a primary that only watches its workers need not hold the proxy.
    const { launchGateway } = await import('../gateway/launch.ts');
    // Before the servers are made: each wraps its requests in spans only if tracing runs by then.
    const tracing = await startTracing(tracingSettings, 'tessera-gateway');
    const gateway = await launchGateway(config, log);
    log.info(
      {
        url: gateway.url,
        admin: gateway.adminUrl,
        forwardAuth: gateway.forwardAuthUrl,
        plugins: config.plugins.map((p) => p.id),
        traces: tracingSettings ? tracingSettings.protocol : 'off',
      },
      'tessera gateway started',
    );
    closeOnSignals(() => gateway.close(), tracing);
  },
};
