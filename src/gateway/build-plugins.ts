import type { GatewayConfig } from './config/gateway-config.ts';
import type { RequestPlugin } from './plugins/plugin.ts';
import { buildPlugin } from './plugins/registry.ts';

/** One plugin instance per configured plugin, in execution order, each built by its type's definition. */
export async function buildPlugins(config: GatewayConfig): Promise<RequestPlugin[]> {
  return Promise.all(config.plugins.map(buildPlugin));
}
