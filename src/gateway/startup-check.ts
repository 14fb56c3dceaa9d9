import type { Logger } from 'pino';
import type { GatewayConfig, PluginConfig } from './config/gateway-config.ts';
import { postTokenRequest } from './plugins/token-exchange/exchange-client.ts';
import { GatewayConfigError } from './settings/config-error.ts';

/** What `/readyz` reports: ready, or the reasons it is not. */
export interface Readiness {
  status(): { ready: boolean; reasons: string[] };
  stop(): void;
}

/** A refusal that proves the credentials wrong; the other codes say the service is not there yet. */
const REFUSED_CLIENT = new Set(['GATEWAY_CLIENT_REFUSED', 'GATEWAY_ACTOR_UNAVAILABLE']);
const UNREACHABLE = new Set([
  'GATEWAY_TOKEN_ENDPOINT_UNREACHABLE',
  'GATEWAY_TOKEN_ENDPOINT_TIMEOUT',
  'GATEWAY_TOKEN_ENDPOINT_FAILED',
  'GATEWAY_TOKEN_ENDPOINT_MALFORMED',
]);
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

type Outcome = { kind: 'ok' } | { kind: 'refused'; error: Error & { code?: string } } | { kind: 'unreachable'; reason: string };

/**
 * Asks for one client_credentials token. A 4xx other than invalid_client (say the client may
 * not use client_credentials) still proves the credentials right, except in oauth_client mode,
 * where that token is the actor of every exchange and so could never be had.
 */
async function askOnce(plugin: PluginConfig): Promise<Outcome> {
  const { params } = plugin;
  try {
    await postTokenRequest(
      `${params.serviceBaseUrl}/oauth2/tokens`,
      new URLSearchParams({ grant_type: 'client_credentials' }),
      params.client,
      params.timeoutMs,
      `plugin "${plugin.id}": the start-up check of its client`,
    );
    return { kind: 'ok' };
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    if (UNREACHABLE.has(code)) return { kind: 'unreachable', reason: `plugin "${plugin.id}": ${(error as Error).message}` };
    if (REFUSED_CLIENT.has(code) || params.actor.mode === 'oauth_client') return { kind: 'refused', error: error as Error };
    return { kind: 'ok' };
  }
}

function refusedError(plugin: PluginConfig, error: Error): GatewayConfigError {
  const cause = (error.cause as Error | undefined)?.message ?? error.message;
  return new GatewayConfigError(
    plugin.keys.clientSecret,
    `plugin "${plugin.id}": ${plugin.params.serviceBaseUrl}/oauth2/tokens refused its client_credentials request (${cause}); check ${plugin.keys.clientId} and ${plugin.keys.clientSecret}`,
  );
}

/**
 * At start-up, each plugin with oauth_client_id/secret asks the service for a token once, so
 * a wrong secret stops start-up instead of failing the first proxied request. A service that
 * does not answer yet does not stop it: the gateway starts not ready (`/readyz` 503 with the
 * reason) and asks again with back-off until the service answers.
 */
export async function checkPluginClients(config: GatewayConfig, log: Logger): Promise<Readiness> {
  const plugins = config.plugins.filter((p) => p.params.client !== undefined);
  const outcomes = await Promise.all(plugins.map(askOnce));
  const refused = outcomes.findIndex((o) => o.kind === 'refused');
  if (refused >= 0) throw refusedError(plugins[refused]!, (outcomes[refused] as { error: Error }).error);

  const pending = new Map<string, string>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const retry = (plugin: PluginConfig, delayMs: number) => {
    const timer = setTimeout(async () => {
      timers.delete(timer);
      const outcome = await askOnce(plugin);
      if (stopped) return;
      if (outcome.kind === 'ok') {
        pending.delete(plugin.id);
        log.info({ plugin: plugin.id }, "the service answers the plugin's client; ready");
      } else if (outcome.kind === 'refused') {
        pending.set(plugin.id, refusedError(plugin, outcome.error).message);
        log.error({ plugin: plugin.id }, pending.get(plugin.id));
      } else {
        pending.set(plugin.id, outcome.reason);
        retry(plugin, Math.min(delayMs * 2, RETRY_MAX_MS));
      }
    }, delayMs);
    timer.unref();
    timers.add(timer);
  };
  outcomes.forEach((outcome, i) => {
    if (outcome.kind !== 'unreachable') return;
    const plugin = plugins[i]!;
    pending.set(plugin.id, outcome.reason);
    log.warn({ plugin: plugin.id }, `${outcome.reason}; starting not ready (/readyz answers 503) and asking again`);
    retry(plugin, RETRY_FIRST_MS);
  });
  return {
    status: () => ({ ready: pending.size === 0, reasons: [...pending.values()] }),
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
    },
  };
}
