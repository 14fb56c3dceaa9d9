import type { GatewayConfig, PluginConfig } from './config/gateway-config.ts';
import { buildTokenExchangePlugin } from './plugins/token-exchange/build.ts';
import type { RequestPlugin } from './proxy/proxy-server.ts';

/**
 * Each plugin type and how to build it. A plugin is a folder under plugins/ holding its
 * handler and its configuration schema; a new type is a new folder and a line here.
 */
const builders: Record<PluginConfig['type'], (config: PluginConfig) => Promise<RequestPlugin>> = {
  'token-exchange': buildTokenExchangePlugin,
};

/** One plugin instance per configured plugin, in execution order. */
export async function buildPlugins(config: GatewayConfig): Promise<RequestPlugin[]> {
  return Promise.all(config.plugins.map((plugin) => builders[plugin.type](plugin)));
}
