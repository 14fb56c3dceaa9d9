import type { UrlRule } from '../request/routing.ts';
import { GatewayConfigError, type KeyNamer } from '../settings/config-error.ts';
import { numbered, objectAt, readBoolean, readUrl, refuseNonScalar } from './values.ts';

/** The `urls` list, in match order; a rule's plugin overrides must name a configured plugin id. */
export function readUrlRules(value: unknown, key: KeyNamer, pluginIds: readonly string[]): UrlRule[] {
  const urls: UrlRule[] = [];
  for (const [i, raw] of numbered(value, key(['urls']))) {
    const entry = objectAt(raw, key(['urls', i]));
    for (const name of ['pattern', 'target'] as const) if (name in entry) refuseNonScalar(entry[name], key(['urls', i, name]));
    const pattern = String(entry.pattern ?? '');
    if (!/^[a-z0-9*.-]+(:(\d{1,5}|\*))?\/\S*$/i.test(pattern))
      throw new GatewayConfigError(key(['urls', i, 'pattern']), 'must be host[:port]/path, with * as a wildcard (e.g. api.example.com/orders/*)');
    const target = readUrl(entry.target, key(['urls', i, 'target']));
    const overrides: Record<string, boolean> = {};
    for (const [id, setting] of Object.entries(objectAt(entry.plugins ?? {}, key(['urls', i, 'plugins'])))) {
      const name = key(['urls', i, 'plugins', id, 'enabled']);
      if (!pluginIds.includes(id.toLowerCase())) throw new GatewayConfigError(name, `names no configured plugin (ids: ${pluginIds.join(', ') || 'none'})`);
      overrides[id.toLowerCase()] = readBoolean(objectAt(setting, name).enabled, true, name);
    }
    urls.push({ pattern, target, plugins: overrides });
  }
  return urls;
}
