import type { Logger } from 'pino';
import type { GatewayConfig } from './config/gateway-config.ts';
import type { StartupOutcome } from './plugins/plugin.ts';
import { type ConfiguredPlugin, pluginStartupCheck } from './plugins/registry.ts';

/** What `/readyz` reports: ready, or the reasons it is not. */
export interface Readiness {
  status(): { ready: boolean; reasons: string[] };
  stop(): void;
}

const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/**
 * At start-up, each plugin with something to check (a token-exchange plugin's client) asks
 * once, so a wrong secret stops start-up instead of failing the first proxied request. A
 * service that does not answer yet does not stop it: the gateway starts not ready (`/readyz`
 * 503 with the reason) and asks again with back-off until the service answers.
 */
export async function checkPluginClients(config: GatewayConfig, log: Logger): Promise<Readiness> {
  const checks = config.plugins.flatMap((plugin) => {
    const ask = pluginStartupCheck(plugin);
    return ask ? [{ plugin, ask }] : [];
  });
  const outcomes = await Promise.all(checks.map(({ ask }) => ask()));
  const refused = outcomes.find((o) => o.kind === 'refused');
  if (refused) throw refused.error;

  const pending = new Map<string, string>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const retry = (plugin: ConfiguredPlugin, ask: () => Promise<StartupOutcome>, delayMs: number) => {
    const timer = setTimeout(async () => {
      timers.delete(timer);
      const outcome = await ask();
      if (stopped) return;
      if (outcome.kind === 'ok') {
        pending.delete(plugin.id);
        log.info({ plugin: plugin.id }, "the service answers the plugin's client; ready");
      } else if (outcome.kind === 'refused') {
        pending.set(plugin.id, outcome.error.message);
        log.error({ plugin: plugin.id }, pending.get(plugin.id));
      } else {
        pending.set(plugin.id, outcome.reason);
        retry(plugin, ask, Math.min(delayMs * 2, RETRY_MAX_MS));
      }
    }, delayMs);
    timer.unref();
    timers.add(timer);
  };
  outcomes.forEach((outcome, i) => {
    if (outcome.kind !== 'unreachable') return;
    const { plugin, ask } = checks[i]!;
    pending.set(plugin.id, outcome.reason);
    log.warn({ plugin: plugin.id }, `${outcome.reason}; starting not ready (/readyz answers 503) and asking again`);
    retry(plugin, ask, RETRY_FIRST_MS);
  });
  return {
    status: () => ({ ready: pending.size === 0, reasons: [...pending.values()] }),
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
    },
  };
}
