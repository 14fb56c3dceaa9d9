import { type ConfiguredPlugin, PLUGIN_TYPES, pluginDefinition } from '../plugins/registry.ts';
import { GatewayConfigError, type KeyNamer } from '../settings/config-error.ts';
import { numbered, objectAt, readBoolean, refuseNonScalar } from './values.ts';

/**
 * The `plugins` list, in execution order (the order of N). The entry's own settings are read
 * here; its `parameters` section goes to the definition its type names in the registry.
 */
export function readPluginEntries(value: unknown, key: KeyNamer): ConfiguredPlugin[] {
  const plugins: ConfiguredPlugin[] = [];
  for (const [n, raw] of numbered(value, key(['plugins']))) {
    const entry = objectAt(raw, key(['plugins', n]));
    for (const name of Object.keys(entry)) {
      if (!['type', 'id', 'enabled', 'parameters'].includes(name))
        throw new GatewayConfigError(key(['plugins', n, name]), 'is not a plugin setting (type, id, enabled, parameters)');
      if (name !== 'parameters') refuseNonScalar(entry[name], key(['plugins', n, name]));
    }
    const definition = pluginDefinition(entry.type);
    if (!definition) throw new GatewayConfigError(key(['plugins', n, 'type']), `must be ${PLUGIN_TYPES.join(' or ')}`);
    const id = String(entry.id ?? `${definition.type}-${n}`).toLowerCase();
    if (!/^[a-z0-9][a-z0-9_-]{0,62}$/.test(id)) throw new GatewayConfigError(key(['plugins', n, 'id']), 'must be letters, digits, "-" or "_"');
    if (plugins.some((p) => p.id === id))
      throw new GatewayConfigError(key(['plugins', n, 'id']), `repeats the id "${id}" (ids are case-insensitive and unique)`);
    const enabled = readBoolean(entry.enabled, true, key(['plugins', n, 'enabled']));
    const keys = { entry: key(['plugins', n]), ...definition.keys?.((field) => key(['plugins', n, 'parameters', field])) };
    const params = definition.parse(entry.parameters ?? {}, ['plugins', n, 'parameters'], key);
    // The definition that read the parameters is the one the type names: they belong together.
    plugins.push({ id, type: definition.type, enabled, params, keys } as ConfiguredPlugin);
  }
  return plugins;
}
