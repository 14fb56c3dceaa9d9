import type { GatewayConfig } from './config/gateway-config.ts';
import { unknownVariableWarnings } from './config/unknown-variables.ts';

/**
 * What a configuration that starts will do that its operator may not expect: said once at
 * start-up, because each of these otherwise shows only as a puzzling answer to a request.
 */
export function gatewayStartupWarnings(config: GatewayConfig, unknownVariables: readonly string[] = []): string[] {
  const warnings = unknownVariableWarnings(unknownVariables, config);
  if (config.urls.length === 0 && config.defaultTarget === undefined) {
    warnings.push('no URL rule (GATEWAY_URLS_<i>_…) and no default target (GATEWAY_DEFAULT_TARGET): every request will be answered 404 GATEWAY_NO_ROUTE');
  }
  if (config.plugins.length === 0) {
    warnings.push("no plugins (GATEWAY_PLUGINS_<N>_…): requests are proxied without exchanging tokens, the caller's Authorization header passed on as sent");
  }
  return warnings;
}
