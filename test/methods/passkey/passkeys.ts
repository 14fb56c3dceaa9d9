import type { SoftwareAuthenticator } from '../../../src/dev/software-authenticator.ts';
import type { Response, TestOrg, TestService } from '../../helpers/service.ts';

/** The relying party every passkey test configures, and the page origin its browser runs on. */
export const RP_ID = 'example.com';
export const ORIGIN = 'https://login.example.com';

export async function configurePasskeys(t: TestService, org: TestOrg, extra: Record<string, unknown> = {}): Promise<void> {
  const response = await t.call('PATCH', '/organizations/config', { as: org, body: { webauthn_rp_id: RP_ID, webauthn_origins: [ORIGIN], ...extra } });
  if (response.status !== 200) throw new Error(`configuring passkeys failed: ${JSON.stringify(response.body)}`);
}

/** A call as a person's browser makes it: Service-OrgID only. */
export function asBrowser(t: TestService, org: TestOrg, path: string, body: unknown): Promise<Response> {
  return t.call('POST', path, { as: { 'service-orgid': org.orgId }, body });
}

export async function loginOptions(t: TestService, org: TestOrg, email: string): Promise<{ challenge_id: string; options: Record<string, any> }> {
  const response = await asBrowser(t, org, '/authn/webauthn/options', { handle: { type: 'email_address', value: email } });
  if (response.status !== 200) throw new Error(`login options failed: ${JSON.stringify(response.body)}`);
  return response.body.result;
}

/** The whole login as a browser runs it: options, the authenticator's assertion, verify. */
export async function passkeyLogin(
  t: TestService,
  org: TestOrg,
  email: string,
  authenticator: SoftwareAuthenticator,
  variant: { origin?: string; rpId?: string; signCount?: number; userHandle?: string | null } = {},
): Promise<Response> {
  const { challenge_id, options } = await loginOptions(t, org, email);
  const response = authenticator.assert({
    challenge: options.challenge,
    rpId: variant.rpId ?? options.rpId,
    origin: variant.origin ?? ORIGIN,
    signCount: variant.signCount,
    userHandle: variant.userHandle,
  });
  return asBrowser(t, org, '/authn/webauthn/verify', { challenge_id, response });
}

/** A person id as registration's user.id carries it, and a passkey's assertion returns it: base64url of its UTF-8. */
export function userHandleOf(personId: string): string {
  return Buffer.from(personId, 'utf8').toString('base64url');
}

/** A discoverable login as a browser runs it: options without a handle, the authenticator's assertion, verify. */
export async function discoverableLogin(
  t: TestService,
  org: TestOrg,
  authenticator: SoftwareAuthenticator,
  variant: { origin?: string; userHandle?: string | null } = {},
): Promise<Response> {
  const started = await asBrowser(t, org, '/authn/webauthn/options', {});
  if (started.status !== 200) throw new Error(`discoverable login options failed: ${JSON.stringify(started.body)}`);
  const { challenge_id, options } = started.body.result;
  const response = authenticator.assert({ challenge: options.challenge, rpId: options.rpId, origin: variant.origin ?? ORIGIN, userHandle: variant.userHandle });
  return asBrowser(t, org, '/authn/webauthn/verify', { challenge_id, response });
}

/** Registers the authenticator for the person with an admin key, as a browser would: it keeps the options' user.id. */
export async function registerPasskey(t: TestService, org: TestOrg, personId: string, authenticator: SoftwareAuthenticator): Promise<void> {
  const started = await t.call('POST', '/authn/webauthn/registration/options', { as: org, body: { person_id: personId } });
  if (started.status !== 200) throw new Error(`registration options failed: ${JSON.stringify(started.body)}`);
  const { challenge_id, options } = started.body.result;
  const response = authenticator.register({ challenge: options.challenge, rpId: options.rp.id, origin: ORIGIN, userId: options.user.id });
  const finished = await t.call('POST', '/authn/webauthn/registration/verify', { as: org, body: { challenge_id, response } });
  if (finished.status !== 201) throw new Error(`registration failed: ${JSON.stringify(finished.body)}`);
}

/** The software authenticator's credential as an import from another system carries it. */
export function importParams(authenticator: SoftwareAuthenticator, signCount = authenticator.signCount) {
  return {
    webauthn_credential_id: authenticator.credentialId,
    public_key: Buffer.from(authenticator.cosePublicKey).toString('base64'),
    attestation_type: 'none',
    authenticator: { aaguid: Buffer.from(authenticator.aaguid).toString('base64'), sign_count: signCount },
  };
}

export async function storedAuthenticator(
  t: TestService,
  org: TestOrg,
  personId: string,
): Promise<{ aaguid: string; sign_count: number; clone_warning: boolean }> {
  const response = await t.call('GET', `/persons/${personId}/credentials`, { as: org });
  return response.body.result.find((c: { type: string }) => c.type === 'public-key').params.authenticator;
}
