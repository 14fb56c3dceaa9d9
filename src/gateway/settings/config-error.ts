/** A configuration that cannot start the gateway; the message names the key at fault. */
export class GatewayConfigError extends Error {
  readonly code = 'GATEWAY_CONFIG_INVALID';
  readonly key: string;
  constructor(key: string, rule: string) {
    super(`${key}: ${rule}`);
    this.name = 'GatewayConfigError';
    this.key = key;
  }
}

/**
 * Where a configuration value came from, so an error can name it the way the operator wrote
 * it: `GATEWAY_PLUGINS_0_PARAMETERS_ACTOR_MODE` from the environment, `plugins[0].parameters.actor_mode`
 * from a file.
 */
export type KeyNamer = (path: readonly (string | number)[]) => string;

export const fileKey: KeyNamer = (path) =>
  path.reduce<string>((name, part) => (typeof part === 'number' ? `${name}[${part}]` : name ? `${name}.${part}` : part), '');

export const envKey: KeyNamer = (path) => ['GATEWAY', ...path.map((part) => String(part).toUpperCase())].join('_');
