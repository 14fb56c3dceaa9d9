import { type Html, html } from '../html.ts';

/**
 * A secret (a <dt>/<dd> pair of a <dl>) on the page that made it, the only time it is shown: the console keeps no copy
 * (only its hash is stored), never puts it in an address, and the page is never cached.
 */
export function oneTimeSecret(id: string, label: string, secret: string): Html {
  return html`<dt>${label}</dt>
<dd><code class="secret" id="${id}">${secret}</code>
  <button type="button" class="secondary" data-copy="${id}" hidden>Copy the ${label.toLowerCase()}</button></dd>`;
}

export const ONE_TIME_WARNING = html`<div class="notice" role="status"><p><strong>Copy the secret now: this is the only time it is shown.</strong>
Tessera keeps only its hash, so nobody can show it again; if it is lost, rotate it.</p></div>`;
