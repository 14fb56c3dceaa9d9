import type { HostAndPort } from './request-target.ts';

/** One of the configuration's `urls`: requests matching `pattern` go to `target`. */
export interface UrlRule {
  pattern: string;
  target: string;
  /** Per-rule overrides of plugins' `enabled`, by plugin id. */
  plugins: Record<string, boolean>;
}

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
  /** The same pattern, case-insensitive: Express, ASP.NET Core and IIS route /API as /api. */
  foldedPath: RegExp;
}

/** The route a request takes, and the rule it would take if its path were read without case. */
export interface RouteMatch {
  route: Route;
  /**
   * The first rule matching the path case-insensitively (undefined: none, the default). A
   * plugin runs if this rule or the route's turns it on: an upstream that ignores case must
   * not get around a rule that does not.
   */
  foldedRule: UrlRule | undefined;
}

const escapeRegExp = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
const wildcard = (text: string) => escapeRegExp(text).replace(/\*/g, '.*');

/**
 * URL rules `host[:port]/path` with `*` wildcards, matched in order against the host and the
 * normalised path (request-target.ts decides both before this runs); the first match wins,
 * else the default target, else nothing.
 */
export class Router {
  readonly #rules: CompiledRule[];
  readonly #fallback: Route | undefined;
  /** Without upper case in patterns or path, the folded match is the exact one: skipped. */
  readonly #patternsHaveCase: boolean;

  constructor(rules: readonly UrlRule[], defaultTarget: string | undefined) {
    this.#rules = rules.map((rule) => {
      const slash = rule.pattern.indexOf('/');
      const [host, port] = rule.pattern.slice(0, slash).split(':') as [string, string | undefined];
      const hostPattern = host.toLowerCase().replace(/\.$/, '');
      const path = `^${wildcard(rule.pattern.slice(slash))}$`;
      return {
        rule,
        route: { ...target(rule.target), rule },
        host: new RegExp(`^${wildcard(hostPattern)}$`),
        port,
        path: new RegExp(path),
        foldedPath: new RegExp(path, 'i'),
      };
    });
    this.#fallback = defaultTarget ? { ...target(defaultTarget), rule: undefined } : undefined;
    this.#patternsHaveCase = rules.some((rule) => /[A-Z]/.test(rule.pattern.slice(rule.pattern.indexOf('/'))));
  }

  /** `host` is already lower-cased without a trailing dot; `path` normalised, without the query. */
  route(host: HostAndPort, path: string, defaultPort: string): RouteMatch | undefined {
    const exact = this.#first(host, path, defaultPort, 'path');
    const route = exact?.route ?? this.#fallback;
    if (!route) return undefined;
    const folded = this.#patternsHaveCase || /[A-Z]/.test(path) ? this.#first(host, path, defaultPort, 'foldedPath') : exact;
    return { route, foldedRule: folded?.rule };
  }

  #first({ host, port }: HostAndPort, path: string, defaultPort: string, by: 'path' | 'foldedPath'): CompiledRule | undefined {
    for (const compiled of this.#rules) {
      if (!compiled.host.test(host)) continue;
      if (compiled.port !== undefined && compiled.port !== '*' && compiled.port !== (port ?? defaultPort)) continue;
      if (compiled[by].test(path)) return compiled;
    }
    return undefined;
  }
}

function target(url: string): Omit<Route, 'rule'> {
  const parsed = new URL(url);
  return { origin: parsed.origin, basePath: parsed.pathname.replace(/\/+$/, '') };
}
