import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { canonicalLoginHandle, PersonLoginView } from '../../authn/login-schemas.ts';
import { ticketHashOf } from '../../authn/second-factor.ts';
import { presentCredential } from '../../credentials/operations.ts';
import { credentialViewSchema } from '../../credentials/routes-schemas.ts';
import { invalidField } from '../../errors/api-error.ts';
import { commonErrors, Envelope } from '../../http/envelope.ts';
import { organizationOf } from '../../http/organization-header.ts';
import type { WebAuthnDeps } from './deps.ts';
import type { RegistrationBody } from './registration.ts';
import { personOfRegistration, registrationCaller } from './registration-caller.ts';
import { Ceremony, LoginOptionsRequest, LoginVerifyRequest, RegistrationOptionsRequest, RegistrationVerifyRequest } from './schemas.ts';
import { publicKeyCredentialType } from './type.ts';

/**
 * Passkeys: login (options + verify, no API key: the person proves who they are) and
 * registration (options + verify, by the person's JWT or an admin key). Every call names the
 * organisation with Service-OrgID.
 */
export function webauthnRoutes(deps: WebAuthnDeps): FastifyPluginAsyncTypebox {
  // The ceremonies run on @simplewebauthn/server (~270 modules with its @peculiar/* and tsyringe
  // dependencies): imported on the first passkey request rather than at start-up, for memory.
  const login = () => import('./login.ts');
  const registration = () => import('./registration.ts');
  return async (app) => {
    const tags = ['authentication'];
    const loginSecurity = [{ orgId: [] }];
    // An admin key, or (described in the summary) Authorization: Bearer with the person's JWT.
    const registrationSecurity: Record<string, string[]>[] = [{ orgId: [], apiKey: [] }, { orgId: [] }];
    const CredentialView = credentialViewSchema([publicKeyCredentialType]);

    app.post(
      '/authn/webauthn/options',
      {
        // No body at all is a discoverable login too, as `{}` is.
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          tags,
          security: loginSecurity,
          summary:
            'Start a passkey login, by handle, discoverable (no handle) or as the second factor (second_factor_ticket): options for navigator.credentials.get()',
          description:
            "With `handle`, the login is for the person the handle names. Without it (`{}` or no body), it is a discoverable (usernameless) login: the browser offers the passkeys it holds for the RP id, and the person is the one the assertion's `userHandle` names (the person id that registration gave as `user.id`). The options have the same shape either way, with `allowCredentials` empty. With `second_factor_ticket` (from POST /authn/password), it is the second step of that login: `allowCredentials` lists the person's passkeys, and the verify call sends the ticket again.",
          body: LoginOptionsRequest,
          response: { 200: Envelope(Ceremony), ...commonErrors },
        },
      },
      async (request) => {
        const org = await organizationOf(request, deps.store);
        const { handle, second_factor_ticket: ticket } = request.body;
        if (handle !== undefined && ticket !== undefined) throw invalidField('body', 'must have at most one of handle and second_factor_ticket');
        const ceremonies = await login();
        if (ticket !== undefined) return { result: await ceremonies.startSecondFactorLogin(deps, org, ticketHashOf(ticket), request.ip) };
        return { result: await ceremonies.startLogin(deps, org, handle ? canonicalLoginHandle(handle) : null, request.ip) };
      },
    );

    app.post(
      '/authn/webauthn/verify',
      {
        schema: {
          tags,
          security: loginSecurity,
          summary: "Finish a passkey login with the browser's assertion (and the second_factor_ticket when it is the second step): a person JWT",
          body: LoginVerifyRequest,
          response: { 200: Envelope(PersonLoginView), ...commonErrors },
        },
      },
      async (request) => {
        const org = await organizationOf(request, deps.store);
        const onRefused = (reason: string) => request.log.info({ reason }, 'passkey assertion refused');
        return { result: await (await login()).finishLogin(deps, org, request.body, onRefused) };
      },
    );

    app.post(
      '/authn/webauthn/registration/options',
      {
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          tags,
          security: registrationSecurity,
          summary: 'Start registering a passkey (admin key, or Authorization: Bearer <person JWT>): options for navigator.credentials.create()',
          body: RegistrationOptionsRequest,
          response: { 200: Envelope(Ceremony), ...commonErrors },
        },
      },
      async (request) => {
        const { org, caller } = await registrationCaller(deps, request);
        const personId = personOfRegistration(caller, (request.body as { person_id?: string }).person_id);
        return { result: await (await registration()).startRegistration(deps, org, caller, personId) };
      },
    );

    app.post(
      '/authn/webauthn/registration/verify',
      {
        schema: {
          tags,
          security: registrationSecurity,
          summary: "Finish registering a passkey (admin key, or Authorization: Bearer <person JWT>) with the browser's attestation: the new credential",
          body: RegistrationVerifyRequest,
          response: { 201: Envelope(CredentialView), ...commonErrors },
        },
      },
      async (request, reply) => {
        const { org, caller } = await registrationCaller(deps, request);
        const onRefused = (reason: string) => request.log.info({ reason }, 'passkey registration refused');
        const { credential } = await (await registration()).finishRegistration(deps, org, caller, request.body as RegistrationBody, onRefused);
        return reply.code(201).send({ result: presentCredential(publicKeyCredentialType, credential) });
      },
    );
  };
}
