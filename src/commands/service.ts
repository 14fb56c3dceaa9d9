import cluster from 'node:cluster';
import { loadServiceConfig } from '../config/service-config.ts';
import { unknownServiceVariableWarnings } from '../config/unknown-variables.ts';
import { explainListenError } from '../runtime/ports.ts';
import { primaryReport } from '../runtime/primary-report.ts';
import { runWorkers } from '../runtime/run-workers.ts';
import { startTracing } from '../telemetry/start-tracing.ts';
import { type Command, closeOnSignals, DATABASE_ENVIRONMENT, parseOptions } from './command.ts';
import { warnOfUnknownVariables } from './variable-warnings.ts';

export const serviceCommand: Command = {
  name: 'service',
  help: `Usage: tessera service

Runs the identity service. Configured by environment variables only; every one is
listed with its default and rule in docs/configuration.md. A TESSERA_* variable that
configures nothing is warned about, with the closest valid name.

Options:
  -h, --help                  this text

Environment:
  TESSERA_PORT                port to listen on (default 8080)
  TESSERA_HOST                address to bind (default 127.0.0.1)
${DATABASE_ENVIRONMENT}
  TESSERA_ISSUER              public base URL (default http://<host>:<port>)
  TESSERA_SECRET              key-encryption secret, 32+ characters (required unless TESSERA_DEV=1)
  TESSERA_DEV=1               development mode: fixed secret, loopback http JWKS URLs allowed
  TESSERA_LOG_LEVEL           fatal … trace, silent (default info)
  TESSERA_BODY_LIMIT          largest request body in bytes (default 65536)
  TESSERA_WORKERS             processes on the one port: 1 to 64, or auto (default 1)
  TESSERA_SHUTDOWN_DELAY      seconds to serve on after SIGTERM with /readyz failing (default 0)
  TESSERA_SHUTDOWN_TIMEOUT    seconds requests in flight get to finish after that (default 10)
  OTEL_EXPORTER_OTLP_ENDPOINT send OpenTelemetry traces there (the other OTEL_* variables
                              apply); see docs/operations.md
`,
  async run(args) {
    const options = parseOptions('service', args, {});
    if (options.help) return void process.stdout.write(serviceCommand.help);
    // On stderr as well as in the log, as the gateway does: a log shipped elsewhere or a level of
    // error must not hide a setting that does nothing from the operator at the terminal. Once,
    // by the first process, and before the settings are checked: a mistyped TESSERA_SECRET is
    // then named beside the refusal it causes.
    const unknown = cluster.isPrimary ? warnOfUnknownVariables('service') : unknownServiceVariableWarnings(process.env);
    const { config, warnings } = loadServiceConfig();
    if (!(await runWorkers(config.workers, 1, primaryReport('tessera service', config.logLevel)))) return;
    // Imported here, not above: a primary that only watches its workers need not hold the service.
    const [{ startService }, { describe }] = await Promise.all([import('../service/service.ts'), import('../store/open-store.ts')]);
    // Before the service is built: its HTTP server, store and mailer are traced only if tracing runs by then.
    const tracing = await startTracing(config.tracing, 'tessera-service');
    const service = await startService(config).catch((error: unknown) => {
      throw explainListenError(error, [{ setting: 'TESSERA_PORT', host: config.host, port: config.port }]);
    });
    for (const warning of [...unknown, ...warnings]) service.app.log.warn(warning);
    service.app.log.info(
      { url: service.url, issuer: service.issuer, database: describe(config.databaseUrl), traces: config.tracing ? config.tracing.protocol : 'off' },
      'tessera service started',
    );
    closeOnSignals(() => service.close(), tracing);
  },
};
