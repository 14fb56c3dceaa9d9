import { nearestName } from '../../validation/nearest-name.ts';
import { PLUGIN_FIELDS, variablesReadBy } from '../plugins/registry.ts';
import { FORWARD_AUTH_KEYS } from './forward-auth-settings.ts';
import { type GatewayConfig, TOP_LEVEL_KEYS } from './gateway-config.ts';

/**
 * Every valid name this variable could have meant: the patterns of docs/gateway.md filled in
 * with the numbers the name itself carries (so `_PLUGINS_3_…` is compared with `_PLUGINS_3_…`)
 * and with the configured plugin ids.
 */
function candidates(name: string, pluginIds: readonly string[]): string[] {
  const numbers = [...new Set([...(name.match(/\d+/g) ?? []), '0'])];
  const names = TOP_LEVEL_KEYS.map((key) => `GATEWAY_${key.toUpperCase()}`);
  for (const key of FORWARD_AUTH_KEYS) names.push(`GATEWAY_FORWARD_AUTH_${key.toUpperCase()}`);
  for (const n of numbers) {
    names.push(`GATEWAY_URLS_${n}_PATTERN`, `GATEWAY_URLS_${n}_TARGET`, `GATEWAY_PLUGINS_${n}_TYPE`, `GATEWAY_PLUGINS_${n}_ID`, `GATEWAY_PLUGINS_${n}_ENABLED`);
    for (const field of PLUGIN_FIELDS) names.push(`GATEWAY_PLUGINS_${n}_PARAMETERS_${field.toUpperCase()}`);
    for (const id of pluginIds) names.push(`GATEWAY_URLS_${n}_PLUGINS_${id.toUpperCase()}_ENABLED`);
  }
  return names;
}

export function closestGatewayName(name: string, pluginIds: readonly string[] = []): string {
  return nearestName(name, candidates(name, pluginIds)) ?? '';
}

/**
 * One warning per `GATEWAY_*` variable that configures nothing, with the closest valid name.
 * A variable a plugin reads (say, the one holding its SVID) is in use, whatever its name.
 */
export function unknownVariableWarnings(unknown: readonly string[], config: GatewayConfig): string[] {
  const read = new Set(config.plugins.flatMap(variablesReadBy));
  const ids = config.plugins.map((p) => p.id);
  return unknown
    .filter((name) => !read.has(name))
    .map((name) => `${name} configures nothing (no such gateway setting); did you mean ${closestGatewayName(name, ids)}? Every setting is in docs/gateway.md`);
}
