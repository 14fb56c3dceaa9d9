import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import { changeOrganizationConfig } from '../../organizations/operations.ts';
import { ConfigPatch } from '../../organizations/schemas.ts';
import type { OrganizationConfig } from '../../store/types.ts';
import { CONFIRMED, CONFIRMED_NOTICE, requireRecentSignIn } from '../confirm/recent.ts';
import { consoleRequest, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field } from '../form-body.ts';
import { checkBody, FormRefusal, formRefusalOf } from '../form-refusals.ts';
import { noticeFrom } from '../notice.ts';
import { formLines, formNumber } from './form-values.ts';
import { type SettingsForm, settingsFormOf, settingsPage } from './organization-pages.ts';
import { consoleOperator } from './persons.ts';

const notices: Record<string, string> = { saved: 'Settings saved.', [CONFIRMED]: CONFIRMED_NOTICE };
const noticeOf = (request: FastifyRequest) => noticeFrom(notices, request.query);

/** An empty optional field is none (null), as the API spells it. */
const orNull = (text: string) => (text === '' ? null : text);

/**
 * The "trust-domain URL" lines as svid_jwks_urls. Only the layout of the lines is the
 * console's to check; the domains and URLs themselves meet the API's rules after this.
 */
function jwksUrlsOf(text: string): Record<string, string> {
  const seen = new Map<string, number>();
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '') return;
    const parts = line.split(/\s+/);
    const [domain, url] = parts as [string, string?];
    if (parts.length !== 2 || url === undefined) {
      problems.push(`svid_jwks_urls line ${index + 1}: must be a trust domain, a space, then its JWKS URL`);
    } else if (seen.has(domain)) {
      problems.push(`svid_jwks_urls line ${index + 1}: trust domain ${domain} is already on line ${seen.get(domain)}`);
    } else seen.set(domain, index + 1);
  });
  if (problems.length > 0) throw new FormRefusal(400, problems);
  // fromEntries defines own properties, so a trust domain named like an Object member stays data.
  return Object.fromEntries(formLines(text).map((line) => line.split(/\s+/) as [string, string]));
}

/** The whole form as a PATCH /organizations/config body: every field, each replacing its value. */
function patchOf(form: SettingsForm): unknown {
  return {
    token_lifetime_ceiling: formNumber(form.tokenLifetimeCeiling),
    email_sender: orNull(form.emailSender),
    email_sender_name: orNull(form.emailSenderName),
    webauthn_rp_id: orNull(form.webauthnRpId),
    webauthn_origins: formLines(form.webauthnOrigins),
    webauthn_refuse_clone_warning: form.webauthnRefuseCloneWarning,
    svid_jwks_urls: jwksUrlsOf(form.svidJwksUrls),
    allowed_spiffe_ids: formLines(form.allowedSpiffeIds),
  };
}

/** Whether the form changes where passkeys work or how a cloned one is treated: a sensitive change (design §5). */
function changesPasskeySettings(config: OrganizationConfig, patch: ConfigPatch): boolean {
  const origins = patch.webauthn_origins ?? config.webauthn_origins;
  return (
    (patch.webauthn_rp_id !== undefined && patch.webauthn_rp_id !== config.webauthn_rp_id) ||
    origins.length !== config.webauthn_origins.length ||
    origins.some((origin, i) => origin !== config.webauthn_origins[i]) ||
    (patch.webauthn_refuse_clone_warning !== undefined && patch.webauthn_refuse_clone_warning !== config.webauthn_refuse_clone_warning)
  );
}

/** Organisation settings: PATCH /organizations/config as a form, under the same schema and rules. */
export function organizationSettingsRoutes(deps: ConsoleDeps) {
  const { store, dev } = deps;
  return async (app: FastifyInstance) => {
    app.get('/console/admin/organization', async (request, reply) => {
      const { org } = signedIn(request, 'admin');
      return settingsPage(reply, consoleRequest(request), org.config, settingsFormOf(org.config), { dev, notice: noticeOf(request) });
    });

    app.post('/console/admin/organization', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const { org } = who;
      const form: SettingsForm = {
        tokenLifetimeCeiling: field(request.body, 'token_lifetime_ceiling'),
        emailSender: field(request.body, 'email_sender').trim(),
        emailSenderName: field(request.body, 'email_sender_name').trim(),
        webauthnRpId: field(request.body, 'webauthn_rp_id').trim(),
        webauthnOrigins: field(request.body, 'webauthn_origins'),
        webauthnRefuseCloneWarning: field(request.body, 'webauthn_refuse_clone_warning') === 'yes',
        svidJwksUrls: field(request.body, 'svid_jwks_urls'),
        allowedSpiffeIds: field(request.body, 'allowed_spiffe_ids'),
      };
      try {
        const patch = patchOf(form);
        checkBody(ConfigPatch, patch);
        if (changesPasskeySettings(org.config, patch as ConfigPatch)) requireRecentSignIn(deps.now, who, '/console/admin/organization');
        if (!(await changeOrganizationConfig(store, org.id, patch as ConfigPatch, { dev }, consoleOperator(who), deps.now()))) {
          throw new ApiError('ORGANIZATION_NOT_FOUND', 'organization: the organisation was deleted');
        }
        return seeOther(reply, '/console/admin/organization?notice=saved');
      } catch (error) {
        const refusal = formRefusalOf(error);
        if (!refusal) throw error;
        return settingsPage(reply, consoleRequest(request), org.config, form, { dev, errors: refusal.messages, status: refusal.status });
      }
    });
  };
}
