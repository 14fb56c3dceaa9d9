import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { personOfBearer } from '../authn/enrolling-person.ts';
import { organizationOf } from '../authn/organization-header.ts';
import { ApiError, invalidField } from '../errors/api-error.ts';
import { commonErrors, Envelope, ErrorEnvelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import type { TokenReader } from '../oauth/tokens/reader.ts';
import type { Organization } from '../store/types.ts';
import type { Operator, VerificationCaller, VerificationDeps } from './deps.ts';
import { type InitiateRequest, initiateVerification } from './initiate.ts';
import { isVerifier, operatorPerson } from './operator.ts';
import { HelpdeskVerifyBody, InitiateBody, Initiated, IntegrationVerifyBody, Verified } from './schemas.ts';
import { verifyCode } from './verify.ts';

const tags = ['email verification'];
const responses = { ...commonErrors, 429: ErrorEnvelope, 502: ErrorEnvelope };

/** Design §6: one of identity_id and email names the identity. */
function identityNamedOnce(body: InitiateRequest): InitiateRequest {
  if ((body.identity_id === undefined) === (body.email === undefined)) throw invalidField('body', 'must have exactly one of identity_id and email');
  return body;
}

/**
 * POST /integrations/email-verifications and …/verify: the external integration's door (spec
 * §4.3), with an integration key. The integration vouches for its operator, who must be a
 * verifier of the organisation; `idp_verified` is refused until it means something.
 */
export function integrationVerificationRoutes(deps: VerificationDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addHook('onRequest', requireApiKey(deps.store, ['integration']));
    const security = [{ orgId: [], apiKey: [] }];
    const callerOf = (request: FastifyRequest): VerificationCaller => {
      const { key } = tenantOf(request);
      return { door: 'integration', apiKeyId: key.id, apiKeyName: key.name };
    };

    app.post(
      '/integrations/email-verifications',
      {
        schema: {
          tags,
          security,
          summary: 'Send a code to an identity of a connection',
          body: InitiateBody,
          response: { 201: Envelope(Initiated), ...responses },
        },
      },
      async (request, reply) => {
        const result = await initiateVerification(deps, tenantOf(request).org, callerOf(request), identityNamedOnce(request.body));
        return reply.code(201).send({ result });
      },
    );

    app.post(
      '/integrations/email-verifications/verify',
      {
        schema: {
          tags,
          security,
          summary: 'Check the code the person read out',
          body: IntegrationVerifyBody,
          response: { 200: Envelope(Verified), ...responses },
        },
      },
      async (request) => {
        const { operator: asserted, ...body } = request.body;
        if (asserted.assertion === 'idp_verified') throw invalidField('body.operator.assertion', 'idp_verified is not yet supported; use integration_asserted');
        const org = tenantOf(request).org;
        const operator: Operator = { email: asserted.email, assertion: 'integration_asserted' };
        const checkOperator = async () => void (await operatorPerson(deps.store, org.id, asserted.email));
        return { result: await verifyCode(deps, org, callerOf(request), operator, body, checkOperator) };
      },
    );
  };
}

/**
 * The same two under /helpdesk/email-verifications…, for a verifier in the console: the caller
 * is the operator, authenticated by their own person JWT.
 */
export function helpdeskVerificationRoutes(deps: VerificationDeps, reader: TokenReader): FastifyPluginAsyncTypebox {
  const verifierOf = async (request: FastifyRequest): Promise<{ org: Organization; caller: VerificationCaller; operator: Operator }> => {
    const org = await organizationOf(request, deps.store);
    const authorization = request.headers.authorization;
    if (authorization === undefined) throw new ApiError('UNAUTHENTICATED', 'header Authorization: is required (Bearer and the person JWT of a verifier)');
    const person = await personOfBearer(authorization, org, deps.store, reader);
    const email = person.handles.find((handle) => handle.type === 'email_address')?.value;
    if (!isVerifier(person) || email === undefined) {
      throw new ApiError('FORBIDDEN', 'header Authorization: the person is not a console person holding the verifier role, with an email handle');
    }
    return { org, caller: { door: 'helpdesk', personId: person.id }, operator: { email, assertion: 'helpdesk_session' } };
  };
  return async (app) => {
    const security = [{ orgId: [], personJwt: [] }];

    app.post(
      '/helpdesk/email-verifications',
      { schema: { tags, security, summary: 'Send a code (helpdesk)', body: InitiateBody, response: { 201: Envelope(Initiated), ...responses } } },
      async (request, reply) => {
        const { org, caller } = await verifierOf(request);
        return reply.code(201).send({ result: await initiateVerification(deps, org, caller, identityNamedOnce(request.body)) });
      },
    );

    app.post(
      '/helpdesk/email-verifications/verify',
      { schema: { tags, security, summary: 'Check the code (helpdesk)', body: HelpdeskVerifyBody, response: { 200: Envelope(Verified), ...responses } } },
      async (request) => {
        const { org, caller, operator } = await verifierOf(request);
        return { result: await verifyCode(deps, org, caller, operator, request.body, async () => {}) };
      },
    );
  };
}
