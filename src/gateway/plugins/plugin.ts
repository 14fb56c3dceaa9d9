import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import type { ForwardHeaders } from '../request/headers.ts';
import type { Inbound } from '../request/inbound.ts';
import type { Route } from '../request/routing.ts';
import type { GatewayConfigError, KeyNamer } from '../settings/config-error.ts';

/** What a plugin sees and may change: the headers that will go upstream. */
export interface PluginContext {
  request: IncomingMessage;
  /** The path, host and query the upstream will see; decided before any plugin runs. */
  inbound: Inbound;
  headers: ForwardHeaders;
  route: Route;
  /**
   * A forward-auth check (design §8): the user's proxy, not the gateway, forwards the request,
   * so what a plugin removes from `headers` is removed only as far as that proxy removes it.
   */
  forwardAuth: boolean;
}

/** One plugin instance, run by the proxy for each request its URL rule turns it on for. */
export interface RequestPlugin {
  id: string;
  enabled: boolean;
  /** Rewrites ctx.headers, or throws a GatewayError that answers the request. */
  run(context: PluginContext): Promise<void>;
  /** Why the plugin cannot do its work now (its actor source fails), or undefined when it can. */
  unready?(): Promise<string | undefined>;
  close?(): Promise<void>;
}

/** One entry of the configuration's `plugins`, its parameters read by its type's definition. */
export interface PluginConfig<Type extends string = string, Params = unknown, Keys = object> {
  /** Lower-cased; unique. */
  id: string;
  type: Type;
  enabled: boolean;
  params: Params;
  /** How the operator names this plugin's settings, for start-up messages. */
  keys: { entry: string } & Keys;
}

/**
 * What a start-up check found: the service answers, it refuses the plugin's settings (start-up
 * stops), or it does not answer yet (the gateway starts not ready and asks again).
 */
export type StartupOutcome = { kind: 'ok' } | { kind: 'refused'; error: GatewayConfigError } | { kind: 'unreachable'; reason: string };

/**
 * A plugin type, as Kong finds `kong/plugins/<name>/schema` and `handler` by name: its
 * parameters' schema, and how an instance is built from a validated entry. The registry
 * (registry.ts) holds one per type; nothing else in the gateway knows a type by name.
 */
export interface PluginDefinition<Type extends string = string, Params = unknown, Keys = object> {
  readonly type: Type;
  /** Its parameter names: GATEWAY_PLUGINS_<N>_PARAMETERS_<FIELD>, and the "did you mean" of a misspelt one. */
  readonly fields: readonly string[];
  /** Validates its `parameters`, at `path` in the configuration; throws a GatewayConfigError naming the first key at fault. */
  parse(parameters: unknown, path: readonly (string | number)[], key: KeyNamer): Params;
  /** The operator's names of the settings its start-up messages point to, from a parameter's name. */
  keys?(parameter: (field: string) => string): Keys;
  /** Environment variables it reads besides GATEWAY_* settings: not warned about as unknown. */
  readsVariables?(params: Params): string[];
  /** What to ask once before anything listens, and again until it answers; undefined: nothing. */
  startupCheck?(plugin: PluginConfig<Type, Params, Keys>): (() => Promise<StartupOutcome>) | undefined;
  /** The instance for a validated entry; `log` is for what it meets while it runs (never a request's tokens). */
  build(plugin: PluginConfig<Type, Params, Keys>, log: Logger): Promise<RequestPlugin>;
  /**
   * Why this instance cannot serve forward auth, where the user's proxy, not the gateway,
   * forwards the request (design §8); undefined: it can. Without it, a type is refused there.
   */
  forwardAuthRefusal?(plugin: PluginConfig<Type, Params, Keys>, proxy: ForwardAuthProxy): GatewayConfigError | undefined;
}

/** What the configuration says the proxy in front of the forward-auth port does itself. */
export interface ForwardAuthProxy {
  subjectCookieStripped: boolean;
  /** The operator's name of that setting, for the refusal's message. */
  subjectCookieStrippedKey: string;
}
