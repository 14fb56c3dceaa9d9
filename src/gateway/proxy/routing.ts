import type { UrlRule } from '../config/gateway-config.ts';

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
 * URL rules `host[:port]/path` with `*` wildcards, matched against the request's Host and
 * path in order; the first match wins, else the default target, else nothing.
 */
export class Router {
  readonly #rules: CompiledRule[];
  readonly #fallback: Route | undefined;

  constructor(rules: readonly UrlRule[], defaultTarget: string | undefined) {
    this.#rules = rules.map((rule) => {
      const slash = rule.pattern.indexOf('/');
      const [host, port] = rule.pattern.slice(0, slash).split(':') as [string, string | undefined];
      return { rule, route: { ...target(rule.target), rule }, host: new RegExp(`^${wildcard(host.toLowerCase())}$`), port, path: new RegExp(`^${wildcard(rule.pattern.slice(slash))}$`) };
    });
    this.#fallback = defaultTarget ? { ...target(defaultTarget), rule: undefined } : undefined;
  }

  route(hostHeader: string | undefined, path: string): Route | undefined {
    if (this.#rules.length === 0) return this.#fallback;
    const [host = '', port] = (hostHeader ?? '').toLowerCase().split(':');
    const query = path.indexOf('?');
    const pathOnly = query === -1 ? path : path.slice(0, query);
    for (const compiled of this.#rules) {
      if (!compiled.host.test(host)) continue;
      if (compiled.port !== undefined && compiled.port !== '*' && compiled.port !== (port ?? '80')) continue;
      if (!compiled.path.test(pathOnly)) continue;
      return compiled.route;
    }
    return this.#fallback;
  }
}

function target(url: string): Omit<Route, 'rule'> {
  const parsed = new URL(url);
  return { origin: parsed.origin, basePath: parsed.pathname.replace(/\/+$/, '') };
}
