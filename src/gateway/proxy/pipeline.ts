import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { nameRequestSpan } from '../../telemetry/server-spans.ts';
import { ATTRIBUTE, inSpan, tracingOn } from '../../telemetry/spans.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { RequestPlugin } from '../plugins/plugin.ts';
import { GatewayError } from '../request/gateway-error.ts';
import { type ForwardHeaders, forwardableHeaders } from '../request/headers.ts';
import type { Inbound } from '../request/inbound.ts';
import { type Route, Router } from '../request/routing.ts';

/** A decided request after its URL rule and plugins: what the upstream is to receive. */
export interface Routed {
  route: Route;
  headers: ForwardHeaders;
  /** The plugins that ran, gathered only when the access log is written (debug). */
  ran: string[] | undefined;
}

/** route → plugins, for a request already decided (readInbound); throws the GatewayError that answers it. */
export type Pipeline = (request: IncomingMessage, inbound: Inbound) => Promise<Routed>;

/**
 * The steps the proxy port and the forward-auth port share (design §8: the same URL rules,
 * plugins and cache), so that a check can never be answered by other rules than the proxy's.
 */
export function createPipeline(config: GatewayConfig, plugins: readonly RequestPlugin[], log: Logger, forwardAuth = false): Pipeline {
  const router = new Router(config.urls, config.defaultTarget);
  return async (request, inbound) => {
    const match = router.route(inbound.host, inbound.target.path, inbound.defaultPort);
    if (!match) throw new GatewayError('GATEWAY_NO_ROUTE', 'no URL rule matches this host and path, and no default target is set');
    const { route, foldedRule } = match;
    nameRequestSpan(request.method ?? 'GET', route.rule?.pattern ?? 'default_target');
    const headers = forwardableHeaders(request.headers);
    // At info and above the access log is not written, and gathering its plugins costs nothing.
    const ran: string[] | undefined = log.isLevelEnabled('debug') ? [] : undefined;
    for (const plugin of plugins) {
      const enabled = (route.rule?.plugins[plugin.id] ?? plugin.enabled) || (foldedRule?.plugins[plugin.id] ?? plugin.enabled);
      if (enabled) {
        const context = { request, inbound, headers, route, forwardAuth };
        await (tracingOn() ? inSpan(`plugin ${plugin.id}`, { [ATTRIBUTE.plugin]: plugin.id }, () => plugin.run(context)) : plugin.run(context));
        ran?.push(plugin.id);
      }
    }
    return { route, headers, ran };
  };
}
