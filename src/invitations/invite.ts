import { type Operator, recordAdminEvent } from '../audit/admin-events.ts';
import { invitationDefaults } from '../config/defaults.ts';
import { hashSecret, randomSecret } from '../crypto/ids.ts';
import type { Mailer } from '../email/mailer.ts';
import { invalidField, personNotFound } from '../errors/api-error.ts';
import type { Store } from '../store/store.ts';
import type { Organization, Person } from '../store/types.ts';
import { invitationEmail } from './invitation-email.ts';
import { invitationUrl } from './link.ts';

export interface InvitationDeps {
  store: Store;
  /** The public base URL: the link is the console's there, never one a request's Host names. */
  issuer: () => string;
  now: () => number;
  mailer: Mailer;
}

export interface InvitationRequest {
  /** Seconds the link works; invitationDefaults.lifetimeSeconds when absent. */
  expiresIn?: number;
  /** Also email the link to the person's email address. */
  send?: boolean;
}

export interface MadeInvitation {
  /** The link, shown once: only its hash is kept. */
  url: string;
  expiresAt: number;
  /** The person held credentials: redeeming the link replaces them. */
  reset: boolean;
  /** The address it was emailed to, when `send` asked for it. */
  emailedTo: string | null;
}

/** Where the link is emailed: the person's email handle (400 naming `field` when they have none). */
function mailboxOf(person: Person, field: string): string {
  const address = person.handles.find((handle) => handle.type === 'email_address')?.value;
  if (!address) throw invalidField(field, 'the person has no email_address handle to send the invitation to; leave send out and pass the link on yourself');
  return address;
}

/**
 * Makes a person's invitation (design §9), revoking the one before, and records it, as a reset
 * when the person holds credentials. A door that signs people in (the console) asks for a recent
 * sign-in before it makes a reset; an API key or the command line is the organisation's own
 * authority already. With `send`, the link is emailed after it is stored; should the mail server
 * refuse it, the invitation is revoked again (recorded too) and the 502 says so: no link is left
 * working that nobody received.
 */
export async function invitePerson(
  deps: InvitationDeps,
  org: Organization,
  personId: string,
  request: InvitationRequest,
  operator: Operator,
  fields = { send: 'body.send' },
): Promise<MadeInvitation> {
  const { store } = deps;
  const at = deps.now();
  const person = await store.getPerson(org.id, personId);
  if (!person) throw personNotFound();
  const to = request.send ? mailboxOf(person, fields.send) : null;
  const reset = (await store.listCredentials(org.id, person.id, { position: { kind: 'first' }, limit: 1 })).items.length > 0;
  const token = randomSecret();
  const expiresAt = at + (request.expiresIn ?? invitationDefaults.lifetimeSeconds) * 1000;
  await store.inTransaction(async (tx) => {
    const invitation = { orgId: org.id, personId: person.id, tokenHash: hashSecret(token), reset, createdAt: at, expiresAt, passwordSetAt: null };
    if (!(await tx.putInvitation(invitation))) throw personNotFound();
    const data = { person_id: person.id, reset, expires_at: new Date(expiresAt).toISOString(), emailed: to !== null };
    await recordAdminEvent(tx, at, org.id, operator, 'person.invited', data);
  });
  const url = invitationUrl(deps.issuer(), token);
  if (to) {
    const senderName = org.config.email_sender_name ?? org.name;
    const content = invitationEmail({ senderName, url, expiresAt, reset });
    try {
      await deps.mailer.send({ to, ...content, fromName: senderName, fromAddress: org.config.email_sender, secrets: [url, token] });
    } catch (error) {
      await store.inTransaction(async (tx) => {
        if (await tx.revokeInvitation(org.id, person.id)) {
          await recordAdminEvent(tx, deps.now(), org.id, operator, 'person.invitation_revoked', { person_id: person.id, reason: 'email_not_sent' });
        }
      });
      throw error;
    }
  }
  return { url, expiresAt, reset, emailedTo: to };
}

/** The range `expires_in` must be in, for the schema and the command line. */
export const INVITATION_LIFETIME_RULE = `seconds from ${invitationDefaults.minSeconds} (5 minutes) to ${invitationDefaults.maxSeconds} (7 days)`;
