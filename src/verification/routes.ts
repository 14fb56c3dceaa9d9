import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { personOfBearer } from '../authn/person-bearer.ts';
import { ApiError, invalidField } from '../errors/api-error.ts';
import { commonErrors, Envelope, ErrorEnvelope } from '../http/envelope.ts';
import { requireApiKey, tenantOf } from '../http/org-auth.ts';
import { organizationOf } from '../http/organization-header.ts';
import type { TokenReader } from '../oauth/tokens/reader.ts';
import type { Organization } from '../store/types.ts';
import type { Operator, VerificationCaller, VerificationDeps } from './deps.ts';
import { type InitiateRequest, initiateVerification } from './initiate.ts';
import { helpdeskOperator, operatorPerson } from './operator.ts';
import { HelpdeskVerifyBody, InitiateBody, Initiated, IntegrationVerifyBody, Verified } from './schemas.ts';
import { verifyCode } from './verify.ts';

const tags = ['email verification'];

interface Verifier {
  org: Organization;
  caller: VerificationCaller;
  operator: Operator;
  /** The operator's person id: what the operator's rate limit counts by. */
  operatorId: string;
}
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
function integrationVerificationRoutes(deps: VerificationDeps): FastifyPluginAsyncTypebox {
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
        const checkOperator = async () => (await operatorPerson(deps.store, org.id, asserted.email)).id;
        return { result: await verifyCode(deps, org, callerOf(request), operator, body, checkOperator) };
      },
    );
  };
}

/**
 * The same two under /helpdesk/email-verifications…, for a verifier in the console: the caller
 * is the operator, authenticated by their own person JWT.
 */
function helpdeskVerificationRoutes(deps: VerificationDeps, reader: TokenReader): FastifyPluginAsyncTypebox {
  const verifiers = new WeakMap<FastifyRequest, Verifier>();
  const verifierOf = (request: FastifyRequest): Verifier => {
    const verifier = verifiers.get(request);
    if (!verifier) throw new TypeError(`route ${request.routeOptions.url} reads the verifier but is not behind the helpdesk hook`);
    return verifier;
  };
  const authenticate = async (request: FastifyRequest): Promise<Verifier> => {
    const org = await organizationOf(request, deps.store);
    const authorization = request.headers.authorization;
    if (authorization === undefined) throw new ApiError('UNAUTHENTICATED', 'header Authorization: is required (Bearer and the person JWT of a verifier)');
    const { person, proof } = await personOfBearer(authorization, org, deps.store, reader);
    return { org, ...helpdeskOperator(person, proof, 'header Authorization') };
  };
  return async (app) => {
    // Before the body is read, as at the integration door: design §6 answers the caller's
    // authentication (401, 403) before any body rule (400).
    app.addHook('onRequest', async (request) => void verifiers.set(request, await authenticate(request)));
    const security = [{ orgId: [], personJwt: [] }];

    app.post(
      '/helpdesk/email-verifications',
      { schema: { tags, security, summary: 'Send a code (helpdesk)', body: InitiateBody, response: { 201: Envelope(Initiated), ...responses } } },
      async (request, reply) => {
        const { org, caller } = verifierOf(request);
        return reply.code(201).send({ result: await initiateVerification(deps, org, caller, identityNamedOnce(request.body)) });
      },
    );

    app.post(
      '/helpdesk/email-verifications/verify',
      { schema: { tags, security, summary: 'Check the code (helpdesk)', body: HelpdeskVerifyBody, response: { 200: Envelope(Verified), ...responses } } },
      async (request) => {
        // The caller is the operator, and a verifier: the hook checked it.
        const { org, caller, operator, operatorId } = verifierOf(request);
        return { result: await verifyCode(deps, org, caller, operator, request.body, async () => operatorId) };
      },
    );
  };
}

/** Both doors of email verification, as the service registers them. */
export function verificationRoutes(deps: VerificationDeps, reader: TokenReader): FastifyPluginAsyncTypebox {
  return async (app) => {
    await app.register(integrationVerificationRoutes(deps));
    await app.register(helpdeskVerificationRoutes(deps, reader));
  };
}
