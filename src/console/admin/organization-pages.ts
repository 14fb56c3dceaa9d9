import type { FastifyReply } from 'fastify';
import { MAX_TOKEN_LIFETIME_SECONDS } from '../../config/defaults.ts';
import type { OrganizationConfig } from '../../store/types.ts';
import type { ConsoleRequest } from '../context.ts';
import { html } from '../html.ts';
import { csrfField, errorSummary, renderPage } from '../layout.ts';

/** The settings form as typed: every field text, but the checkbox. */
export interface SettingsForm {
  tokenLifetimeCeiling: string;
  emailSender: string;
  emailSenderName: string;
  webauthnRpId: string;
  /** One origin per line. */
  webauthnOrigins: string;
  webauthnRefuseCloneWarning: boolean;
  /** Lines "trust-domain URL". */
  svidJwksUrls: string;
  /** One SPIFFE ID per line. */
  allowedSpiffeIds: string;
}

export function settingsFormOf(config: OrganizationConfig): SettingsForm {
  return {
    tokenLifetimeCeiling: String(config.token_lifetime_ceiling),
    emailSender: config.email_sender ?? '',
    emailSenderName: config.email_sender_name ?? '',
    webauthnRpId: config.webauthn_rp_id ?? '',
    webauthnOrigins: config.webauthn_origins.join('\n'),
    webauthnRefuseCloneWarning: config.webauthn_refuse_clone_warning,
    svidJwksUrls: Object.entries(config.svid_jwks_urls)
      .map(([domain, url]) => `${domain} ${url}`)
      .join('\n'),
    allowedSpiffeIds: config.allowed_spiffe_ids.join('\n'),
  };
}

/** The organisation's settings: `saved` is the configuration in force (the warning is about it), `form` what the form shows. */
export function settingsPage(
  reply: FastifyReply,
  ctx: ConsoleRequest,
  saved: OrganizationConfig,
  form: SettingsForm,
  options: { dev: boolean; errors?: string[]; status?: number; notice?: string | undefined },
) {
  const passkeysOff = saved.webauthn_rp_id === null || saved.webauthn_origins.length === 0;
  return renderPage(reply, ctx, {
    title: 'Organisation settings',
    status: options.status ?? 200,
    notice: options.notice,
    body: html`<p><a href="/console/admin">Administration</a></p>
${passkeysOff && html`<p class="warning" role="note"><strong>Passkeys are off:</strong> nobody can register a passkey or sign in with one until a relying party id and at least one origin are set below.</p>`}
${errorSummary(options.errors ?? [])}
<form method="post" action="/console/admin/organization" class="stack">
  ${csrfField(ctx)}
  <fieldset>
    <legend>Tokens</legend>
    <div class="field">
      <label for="token-lifetime-ceiling">Token lifetime ceiling in seconds</label>
      <input id="token-lifetime-ceiling" name="token_lifetime_ceiling" value="${form.tokenLifetimeCeiling}" inputmode="numeric" required autocomplete="off" aria-describedby="ceiling-hint">
      <p class="hint" id="ceiling-hint">60 to ${MAX_TOKEN_LIFETIME_SECONDS}: no token of the organisation lives longer, whatever its client asks.</p>
    </div>
  </fieldset>
  <fieldset>
    <legend>Verification emails</legend>
    <div class="field">
      <label for="email-sender">Sender address (optional)</label>
      <input id="email-sender" name="email_sender" inputmode="email" value="${form.emailSender}" autocomplete="off" aria-describedby="sender-hint">
      <p class="hint" id="sender-hint">The From address; empty: the service's default sender.</p>
    </div>
    <div class="field">
      <label for="email-sender-name">Sender name (optional)</label>
      <input id="email-sender-name" name="email_sender_name" value="${form.emailSenderName}" maxlength="100" autocomplete="off" aria-describedby="sender-name-hint">
      <p class="hint" id="sender-name-hint">Shown in the From header and the message; empty: the organisation's name.</p>
    </div>
  </fieldset>
  <fieldset>
    <legend>Passkeys (WebAuthn)</legend>
    <div class="field">
      <label for="webauthn-rp-id">Relying party id</label>
      <input id="webauthn-rp-id" name="webauthn_rp_id" value="${form.webauthnRpId}" autocomplete="off" aria-describedby="rp-id-hint">
      <p class="hint" id="rp-id-hint">The domain passkeys are bound to, for example <code>example.com</code>; empty: passkeys are off.</p>
    </div>
    <div class="field">
      <label for="webauthn-origins">Origins, one per line</label>
      <textarea id="webauthn-origins" name="webauthn_origins" rows="3" aria-describedby="origins-hint">${form.webauthnOrigins}</textarea>
      <p class="hint" id="origins-hint">The pages that run passkey ceremonies, for example <code>https://login.example.com</code>: https (http only for localhost), on the relying party id or a subdomain of it.</p>
    </div>
    <div><input type="checkbox" id="webauthn-refuse-clone-warning" name="webauthn_refuse_clone_warning" value="yes" ${form.webauthnRefuseCloneWarning && html`checked`}>
      <label for="webauthn-refuse-clone-warning">Refuse a passkey whose signature counter did not increase</label>
      <span class="hint">(it may have been cloned)</span></div>
  </fieldset>
  <fieldset>
    <legend>SPIFFE workloads</legend>
    <div class="field">
      <label for="svid-jwks-urls">Trust domains and their JWKS URLs, one per line</label>
      <textarea id="svid-jwks-urls" name="svid_jwks_urls" rows="3" aria-describedby="jwks-hint">${form.svidJwksUrls}</textarea>
      <p class="hint" id="jwks-hint">A trust domain, a space, then the https URL of its JWT-SVID keys, for example
        <code>prod.example.org https://spire.example.org/keys</code>.${options.dev ? ' This service runs in development mode: http on a loopback address is accepted too.' : ''}</p>
    </div>
    <div class="field">
      <label for="allowed-spiffe-ids">Allowed SPIFFE IDs, one per line</label>
      <textarea id="allowed-spiffe-ids" name="allowed_spiffe_ids" rows="3" aria-describedby="spiffe-hint">${form.allowedSpiffeIds}</textarea>
      <p class="hint" id="spiffe-hint">Workloads that may act, for example <code>spiffe://prod.example.org/ns/default/sa/gateway</code>; each of a trust domain listed above.</p>
    </div>
  </fieldset>
  <button type="submit">Save the settings</button>
</form>`,
  });
}
