import type { UrlRule } from '../config/gateway-config.ts';
import type { HostAndPort } from './request-target.ts';

export interface Route {
  /** Origin of the upstream, e.g. http://orders:8080. */
  origin: string;
  /** Path prefix of the target, prepended to the request path. */
  basePath: string;
  rule: UrlRule | undefined;
}

interface CompiledRule {
  rule: UrlRule;
  /** Parsed once: a URL per request would cost more than the match itself. */
  route: Route;
  host: RegExp;
  port: string | undefined;
  path: RegExp;
}

const escape = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
const wildcard = (text: string) => escape(text).replace(/\*/g, '.*');

/**
 * URL rules `host[:port]/path` with `*` wildcards, matched in order against the host and the
 * normalised path (request-target.ts decides both before this runs); the first match wins,
 * else the default target, else nothing.
 */
export class Router {
  readonly #rules: CompiledRule[];
  readonly #fallback: Route | undefined;

  constructor(rules: readonly UrlRule[], defaultTarget: string | undefined) {
    this.#rules = rules.map((rule) => {
      const slash = rule.pattern.indexOf('/');
      const [host, port] = rule.pattern.slice(0, slash).split(':') as [string, string | undefined];
      const hostPattern = host.toLowerCase().replace(/\.$/, '');
      return { rule, route: { ...target(rule.target), rule }, host: new RegExp(`^${wildcard(hostPattern)}$`), port, path: new RegExp(`^${wildcard(rule.pattern.slice(slash))}$`) };
    });
    this.#fallback = defaultTarget ? { ...target(defaultTarget), rule: undefined } : undefined;
  }

  /** `host` is already lower-cased without a trailing dot; `path` normalised, without the query. */
  route({ host, port }: HostAndPort, path: string, defaultPort: string): Route | undefined {
    if (this.#rules.length === 0) return this.#fallback;
    for (const compiled of this.#rules) {
      if (!compiled.host.test(host)) continue;
      if (compiled.port !== undefined && compiled.port !== '*' && compiled.port !== (port ?? defaultPort)) continue;
      if (!compiled.path.test(path)) continue;
      return compiled.route;
    }
    return this.#fallback;
  }
}

function target(url: string): Omit<Route, 'rule'> {
  const parsed = new URL(url);
  return { origin: parsed.origin, basePath: parsed.pathname.replace(/\/+$/, '') };
}
