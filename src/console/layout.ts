import type { FastifyReply } from 'fastify';
import { assetUrl } from './assets.ts';
import type { ConsoleRequest } from './context.ts';
import { type Html, html } from './html.ts';

export interface PageOptions {
  title: string;
  body: Html;
  /** The WebAuthn bundle, only on the pages that run a ceremony. */
  webauthn?: boolean;
  /** A notice shown above the page's content (after a redirect: "Signed out"). */
  notice?: string | undefined;
  status?: number;
}

/**
 * A navigation link, marked when the page is in its section: aria-current="page" on the section's
 * own page, "true" on a page within it (the clients page is in Administration but is not it), so a
 * screen reader says where the person is and the style shows it to everyone else.
 */
function navLink(href: string, text: string, path: string): Html {
  const current = path === href ? 'page' : path.startsWith(`${href}/`) ? 'true' : undefined;
  return html`<li><a href="${href}"${current && html` aria-current="${current}"`}>${text}</a></li>`;
}

function navigation(ctx: ConsoleRequest, path: string): Html {
  // A session that must enrol a second factor first sees no other page: its navigation is sign-out alone.
  const who = ctx.signedIn ?? ctx.enrolling;
  if (!who) return html``;
  const roles = ctx.signedIn ? who.person.roles : [];
  const email = who.person.handles.find((h) => h.type === 'email_address')?.value ?? who.person.id;
  return html`<nav aria-label="Console">
    <ul>
      ${roles.includes('verifier') && navLink('/console/verify', 'Verify a caller', path)}
      ${ctx.signedIn && navLink('/console/security', 'My security', path)}
      ${roles.includes('admin') && navLink('/console/admin', 'Administration', path)}
    </ul>
    <form method="post" action="/console/sign-out" class="inline">
      <input type="hidden" name="_csrf" value="${ctx.csrf}">
      <span class="who">${email} · ${who.org.name}</span>
      <button type="submit">Sign out</button>
    </form>
  </nav>`;
}

/** A whole console page: one landmark structure everywhere, so keyboard and screen-reader users find their way the same on each. */
export function renderPage(reply: FastifyReply, ctx: ConsoleRequest, page: PageOptions): FastifyReply {
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · Tessera console</title>
<link rel="icon" href="${assetUrl('favicon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${assetUrl('console.css')}">
${page.webauthn && html`<script src="${assetUrl('webauthn.js')}" defer></script>`}
<script src="${assetUrl('console.js')}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
  <p class="brand"><a href="/console/">Tessera console</a></p>
  ${navigation(ctx, reply.request.url.split('?')[0]!)}
</header>
<main id="main" tabindex="-1">
  <h1>${page.title}</h1>
  ${page.notice && html`<p class="notice" role="status">${page.notice}</p>`}
  ${page.body}
</main>
</body>
</html>`;
  return reply
    .code(page.status ?? 200)
    .type('text/html; charset=utf-8')
    .send(document.value);
}

/** The hidden field every state-changing form carries. */
export function csrfField(ctx: ConsoleRequest): Html {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf}">`;
}

/** A form's error summary: announced to screen readers and focusable, naming the field and the rule. */
export function errorSummary(messages: readonly string[]): Html {
  if (messages.length === 0) return html``;
  return html`<div class="error" role="alert" tabindex="-1" id="form-error">
    <h2>There is a problem</h2>
    <ul>${messages.map((m) => html`<li>${m}</li>`)}</ul>
  </div>`;
}
