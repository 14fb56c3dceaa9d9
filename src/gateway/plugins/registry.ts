import type { Logger } from 'pino';
import { GatewayConfigError } from '../settings/config-error.ts';
import type { ForwardAuthProxy, PluginConfig, PluginDefinition, RequestPlugin, StartupOutcome } from './plugin.ts';
import { tokenExchange } from './token-exchange/definition.ts';

/** Every plugin type the gateway has: a new type is a folder under plugins/ and an entry here. */
const DEFINITIONS = [tokenExchange] as const;

/** Distributes over a union of definitions, so each type keeps its own parameters. */
type ConfigOf<Definition> = Definition extends PluginDefinition<infer Type, infer Params, infer Keys> ? PluginConfig<Type, Params, Keys> : never;
/** A validated entry of the configuration's `plugins`, of whichever registered type. */
export type ConfiguredPlugin = ConfigOf<(typeof DEFINITIONS)[number]>;

const byType: ReadonlyMap<string, PluginDefinition> = new Map(DEFINITIONS.map((definition) => [definition.type, definition]));

/** The types a configuration may name, in the order an error lists them. */
export const PLUGIN_TYPES: readonly string[] = [...byType.keys()];

/** Every type's parameter names, once each: the environment's and "did you mean"'s vocabulary. */
export const PLUGIN_FIELDS: readonly string[] = [...new Set(DEFINITIONS.flatMap((definition) => definition.fields))];

/** The definition of a configured type name; undefined for a name no plugin has. */
export function pluginDefinition(type: unknown): PluginDefinition | undefined {
  return typeof type === 'string' ? byType.get(type) : undefined;
}

const definitionOf = (plugin: ConfiguredPlugin) => byType.get(plugin.type)!;

export function buildPlugin(plugin: ConfiguredPlugin, log: Logger): Promise<RequestPlugin> {
  return definitionOf(plugin).build(plugin, log);
}

export function pluginStartupCheck(plugin: ConfiguredPlugin): (() => Promise<StartupOutcome>) | undefined {
  return definitionOf(plugin).startupCheck?.(plugin);
}

export function variablesReadBy(plugin: ConfiguredPlugin): string[] {
  return definitionOf(plugin).readsVariables?.(plugin.params) ?? [];
}

/** Design §8's guard for one plugin the forward-auth port may run; a type that says nothing is refused. */
export function forwardAuthRefusal(plugin: ConfiguredPlugin, proxy: ForwardAuthProxy): GatewayConfigError | undefined {
  const definition = definitionOf(plugin);
  if (!definition.forwardAuthRefusal) return new GatewayConfigError(plugin.keys.entry, `a ${plugin.type} plugin cannot serve forward auth`);
  return definition.forwardAuthRefusal(plugin, proxy);
}
