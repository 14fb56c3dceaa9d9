import { type Logger, pino } from 'pino';
import type { GatewayConfig } from './config/gateway-config.ts';
import type { RequestPlugin } from './plugins/plugin.ts';
import { buildPlugin } from './plugins/registry.ts';

/** One plugin instance per configured plugin, in execution order, each built by its type's definition; tests may leave out the log. */
export async function buildPlugins(config: GatewayConfig, log: Logger = pino({ level: 'silent' })): Promise<RequestPlugin[]> {
  return Promise.all(config.plugins.map((plugin) => buildPlugin(plugin, log)));
}
