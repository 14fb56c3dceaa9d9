import type { Logger } from 'pino';
import { explainListenError } from '../runtime/ports.ts';
import { buildPlugins } from './build-plugins.ts';
import type { GatewayConfig } from './config/gateway-config.ts';
import { type RunningGateway, startGateway } from './lifecycle.ts';
import { checkPluginClients } from './startup-check.ts';

/**
 * Starts a configured gateway: checks each plugin's client at the service first (a refused
 * client stops here, before anything listens), then listens; a port that is taken is named
 * by its setting (GATEWAY_PORT, GATEWAY_ADMIN_PORT, or the file's key).
 */
export async function launchGateway(config: GatewayConfig, log: Logger): Promise<RunningGateway> {
  const readiness = await checkPluginClients(config, log);
  try {
    const plugins = await buildPlugins(config, log);
    const gateway = await startGateway(config, plugins, log, { readiness: readiness.status }).catch(async (error: unknown) => {
      await Promise.all(plugins.map((p) => p.close?.()));
      throw explainListenError(error, [
        { setting: config.keys.port, host: config.host, port: config.port },
        { setting: config.keys.adminPort, host: config.host, port: config.adminPort },
        ...(config.forwardAuth ? [{ setting: config.forwardAuth.portKey, host: config.forwardAuth.host, port: config.forwardAuth.port }] : []),
      ]);
    });
    return {
      ...gateway,
      async close() {
        readiness.stop();
        await gateway.close();
      },
    };
  } catch (error) {
    readiness.stop();
    throw error;
  }
}
