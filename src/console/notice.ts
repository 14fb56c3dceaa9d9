/**
 * Notices after a redirect (`?notice=signed-out`): the query names one of the page's fixed texts, so
 * nothing a link carries is ever shown, and only the page's own keys count (never `constructor`).
 */
export function noticeFrom(notices: Readonly<Record<string, string>>, query: unknown): string | undefined {
  const key = (query as Record<string, unknown> | undefined)?.notice;
  return typeof key === 'string' && Object.hasOwn(notices, key) ? notices[key] : undefined;
}
