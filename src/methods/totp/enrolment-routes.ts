import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { enrollingPerson } from '../../authn/enrolling-person.ts';
import { presentCredential } from '../../credentials/operations.ts';
import { commonErrors, Envelope } from '../../http/envelope.ts';
import type { TokenReader } from '../../oauth/tokens/reader.ts';
import type { OrganizationStore } from '../../store/organizations/store.ts';
import type { PersonStore } from '../../store/persons/store.ts';
import { confirmTotpEnrolment, startTotpEnrolment, type TotpEnrolmentDeps } from './enrolment-flow.ts';
import { totpCredentialType } from './index.ts';
import { regenerateRecoveryCodes } from './regenerate-recovery-codes.ts';

const PersonId = Type.String({ minLength: 1, maxLength: 64, description: 'With an admin key only: the person who enrols' });
const StartBody = Type.Object(
  { person_id: Type.Optional(PersonId), label: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
  { additionalProperties: false },
);
const ConfirmBody = Type.Object(
  {
    person_id: Type.Optional(PersonId),
    enrolment_id: Type.String({ minLength: 1, maxLength: 64 }),
    code: Type.String({ minLength: 6, maxLength: 8, pattern: '^[0-9]+$', description: "The authenticator's current code" }),
  },
  { additionalProperties: false },
);
const Started = Type.Object({
  enrolment_id: Type.String(),
  key_uri: Type.String({ description: 'otpauth://totp/ key URI: shown once' }),
  secret: Type.String({ description: 'The key in Base32, for typing in: shown once' }),
  recovery_codes: Type.Array(Type.String(), { description: 'Shown once; each logs in once' }),
  expires_at: Type.String({ format: 'date-time' }),
});
const RegenerateBody = Type.Object(
  {
    person_id: Type.Optional(PersonId),
    credential_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'The TOTP credential; required only when the person has several' })),
  },
  { additionalProperties: false },
);
const Regenerated = Type.Object({
  credential_id: Type.String(),
  recovery_codes: Type.Array(Type.String(), { description: 'Shown once; each logs in once. The previous codes no longer work' }),
});
const CredentialView = Type.Object({
  id: Type.String(),
  last_used: Type.Union([Type.String(), Type.Null()]),
  type: Type.String({ description: 'totp' }),
  params: Type.Record(Type.String(), Type.Unknown(), { description: 'recovery_codes_total and recovery_codes_unused' }),
  label: Type.Optional(Type.String()),
});

const tags = ['authentication'];
/**
 * Either an admin key with person_id, or a person JWT in Authorization: Bearer (enrolling-person.ts);
 * the document declares no bearer scheme, so the JWT alternative is the bare Service-OrgID entry.
 */
const security: Record<string, string[]>[] = [{ orgId: [], apiKey: [] }, { orgId: [] }];

/** POST /authn/totp/enrolment, /authn/totp/enrolment/confirm and /authn/totp/recovery-codes. */
export function enrolmentRoutes(store: OrganizationStore & PersonStore, reader: TokenReader, deps: TotpEnrolmentDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/authn/totp/enrolment',
      {
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: { tags, security, summary: 'Start a TOTP enrolment', body: Type.Optional(StartBody), response: { 201: Envelope(Started), ...commonErrors } },
      },
      async (request, reply) => {
        const body: { person_id?: string; label?: string } = request.body ?? {};
        const enroller = await enrollingPerson(request, reply, store, reader, body.person_id);
        return reply.code(201).send({ result: await startTotpEnrolment(enroller, body.label ?? null, deps) });
      },
    );

    app.post(
      '/authn/totp/enrolment/confirm',
      {
        schema: {
          tags,
          security,
          summary: 'Confirm a TOTP enrolment with a first code',
          body: ConfirmBody,
          response: { 201: Envelope(CredentialView), ...commonErrors },
        },
      },
      async (request, reply) => {
        const enroller = await enrollingPerson(request, reply, store, reader, request.body.person_id);
        const credential = await confirmTotpEnrolment(enroller, request.body.enrolment_id, request.body.code, deps);
        return reply.code(201).send({ result: presentCredential(totpCredentialType, credential) });
      },
    );

    app.post(
      '/authn/totp/recovery-codes',
      {
        preValidation: async (request) => {
          request.body ??= {};
        },
        schema: {
          tags,
          security,
          summary: 'Replace the recovery codes of a TOTP credential',
          body: Type.Optional(RegenerateBody),
          response: { 200: Envelope(Regenerated), ...commonErrors },
        },
      },
      async (request, reply) => {
        const body: { person_id?: string; credential_id?: string } = request.body ?? {};
        const enroller = await enrollingPerson(request, reply, store, reader, body.person_id);
        return { result: await regenerateRecoveryCodes(enroller, body.credential_id, deps) };
      },
    );
  };
}
