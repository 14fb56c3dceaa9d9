import { operatorFields } from '../../audit/admin-events.ts';
import { type Enroller, requireFactorManagement } from '../../authn/enrolling-person.ts';
import { SWEEP_LIMIT } from '../../concurrency/in-batches.ts';
import { checkCredentialLabel, createPersonCredential } from '../../credentials/create-credential.ts';
import type { CredentialTypeContext } from '../../credentials/credential-type.ts';
import { newId } from '../../crypto/ids.ts';
import { ApiError, invalidField } from '../../errors/api-error.ts';
import type { AuditStore } from '../../store/audit/store.ts';
import type { AuthnAttemptStore } from '../../store/authn/store.ts';
import type { Credential, CredentialStore } from '../../store/credentials/store.ts';
import type { PersonStore } from '../../store/persons/store.ts';
import type { TransactionalStore } from '../../store/store.ts';
import type { TotpEnrolmentStore } from '../../store/totp-enrolments/store.ts';
import { newEnrolment, recoveryCodes, totpCredentialType, verifyTotp } from './index.ts';
import { withUsedStep } from './spend.ts';

/** Long enough to scan a QR code and type a first code; short enough that a forgotten one goes. */
export const ENROLMENT_LIFETIME_MS = 10 * 60 * 1000;
export const ENROLMENT_RECOVERY_CODES = 10;

export interface TotpEnrolmentDeps {
  store: TotpEnrolmentStore & CredentialStore & AuditStore & AuthnAttemptStore & PersonStore & TransactionalStore;
  context: CredentialTypeContext;
  now: () => number;
}

/** What the person is shown once: the key (URI and Base32) and the recovery codes. */
export interface StartedEnrolment {
  enrolment_id: string;
  key_uri: string;
  secret: string;
  recovery_codes: string[];
  expires_at: string;
}

/**
 * Starts an enrolment: a fresh key and recovery codes, prepared exactly as an import of them
 * would be (so an enrolled and an imported credential are alike) and kept pending in the store.
 */
export async function startTotpEnrolment(enroller: Enroller, label: string | null, { store, context, now }: TotpEnrolmentDeps): Promise<StartedEnrolment> {
  const { org, person } = enroller;
  checkCredentialLabel(label);
  await requireFactorManagement(store, enroller, 'TOTP enrolment');
  const at = now();
  await store.purgeExpiredTotpEnrolments(at, SWEEP_LIMIT);
  const { secret, keyUri } = newEnrolment(org.name, accountName(person.handles[0]?.value, person.id));
  const codes = recoveryCodes(ENROLMENT_RECOVERY_CODES);
  const prepared = await totpCredentialType.prepare({ key_uri: keyUri, recovery_codes_total: codes.length, unused_recovery_codes: codes }, context);
  const id = newId('enr', at);
  const expiresAt = at + ENROLMENT_LIFETIME_MS;
  const stored = await store.createTotpEnrolment({
    id,
    orgId: org.id,
    personId: person.id,
    label,
    params: prepared.params,
    secret: prepared.secret ?? {},
    createdAt: at,
    expiresAt,
  });
  // The person named (by the token, the API key's body.person_id or the console session) was deleted meanwhile.
  if (!stored) throw new ApiError('NOT_FOUND', 'the person was deleted while the enrolment started');
  return { enrolment_id: id, key_uri: keyUri, secret, recovery_codes: codes, expires_at: new Date(expiresAt).toISOString() };
}

/**
 * Turns a pending enrolment into a TOTP credential once a first code proves the authenticator
 * holds the key. The code's step is recorded as used, so it cannot log in afterwards; the
 * enrolment is spent by one conditional DELETE, so concurrent confirmations make one credential.
 */
export async function confirmTotpEnrolment(enroller: Enroller, enrolmentId: string, code: string, deps: TotpEnrolmentDeps): Promise<Credential> {
  const { store, context, now } = deps;
  const { org, person } = enroller;
  const firstOnly = await requireFactorManagement(store, enroller, 'TOTP enrolment');
  const at = now();
  const pending = await store.getTotpEnrolment(org.id, person.id, enrolmentId, at);
  if (!pending) throw enrolmentNotFound();
  const step = verifyTotp(code, pending, context, at);
  if (step === undefined) throw invalidField('body.code', "is not a current code of the enrolment's key");
  if (!(await store.spendTotpEnrolment(org.id, person.id, enrolmentId))) throw enrolmentNotFound();
  const credential = await createPersonCredential(store, context.hashCode, {
    orgId: org.id,
    personId: person.id,
    type: 'totp',
    label: pending.label,
    prepared: { params: pending.params, secret: withUsedStep(pending.secret, step) },
    audit: { enrolled: true, ...(enroller.apiKeyId ? operatorFields({ kind: 'api_key', apiKeyId: enroller.apiKeyId }) : { api_key_id: null }) },
    at,
    ...(firstOnly ? { unlessHolding: firstOnly } : {}),
  });
  if (!credential) throw new ApiError('NOT_FOUND', 'the person was deleted during the enrolment');
  return credential;
}

/** The account name shown in the app: the person's first handle, unless it cannot be a label. */
function accountName(handle: string | undefined, personId: string): string {
  return handle && !handle.includes(':') ? handle : personId;
}

function enrolmentNotFound(): ApiError {
  return new ApiError('NOT_FOUND', 'body.enrolment_id: no pending enrolment of this person has this id (it may have expired or been confirmed)');
}
