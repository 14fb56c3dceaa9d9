import type { Handle } from '../store/types.ts';
import { type Html, html } from './html.ts';

/** A moment as a table shows it: to the minute (or second) in UTC, the exact instant in the datetime attribute. */
export function timestamp(ms: number, precision: 'minute' | 'second' = 'minute'): Html {
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, precision === 'minute' ? 16 : 19).replace('T', ' ')} UTC</time>`;
}

export function handlesText(handles: readonly Handle[]): string {
  return handles.length === 0 ? '(no handles)' : handles.map((h) => h.value).join(', ');
}

export function listText(items: readonly string[], none = 'none'): string {
  return items.length === 0 ? none : items.join(', ');
}
