/**
 * A reference model of a SCIM User's covered attributes (design §6), written apart from
 * src/scim: what each change means by RFC 7643/7644, and what the User must read as afterwards.
 * The property suite (attribute-paths.property.test.ts) sends every change in one of the forms
 * RFC 7644 allows (attribute-paths.forms.ts) and compares the service's User with this one.
 */
export const CORE = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

export interface Email {
  value?: string;
  type?: string;
  primary?: boolean;
}

/** A single-valued attribute the suite covers, by where it lives. */
export type Simple = 'userName' | 'active' | 'externalId' | 'displayName' | 'givenName' | 'familyName' | 'employeeNumber' | 'department';
export const NAME_PARTS: readonly Simple[] = ['givenName', 'familyName'];
export const ENTERPRISE_PARTS: readonly Simple[] = ['employeeNumber', 'department'];

export interface Model {
  values: Partial<Record<Simple, string | boolean>>;
  emails: Email[];
  /** Once deactivated, a missing `active` reads as inactive. */
  deactivatedBefore: boolean;
}

export type Change =
  | { kind: 'set'; attribute: Simple; value: string | boolean | null }
  | { kind: 'remove'; attribute: Simple }
  | { kind: 'workEmail'; value: string | null }
  | { kind: 'removeWorkEmailValue' }
  | { kind: 'emails'; op: 'replace' | 'add'; list: Email[] }
  | { kind: 'put'; values: Partial<Record<Simple, string | boolean>>; emails: Email[] };

export function initialModel(email: string): Model {
  return { values: { userName: email, active: true }, emails: [{ value: email, type: 'work', primary: true }], deactivatedBefore: false };
}

const isWork = (email: Email) => email.type?.toLowerCase() === 'work';

/** The model after `change`; the input is left as it was. */
export function applyChange(model: Model, change: Change): Model {
  const next: Model = { values: { ...model.values }, emails: model.emails.map((e) => ({ ...e })), deactivatedBefore: model.deactivatedBefore };
  switch (change.kind) {
    case 'set':
      // null is no value: the attribute goes (RFC 7644 §3.5.2).
      if (change.value === null) delete next.values[change.attribute];
      else next.values[change.attribute] = change.value;
      break;
    case 'remove':
      delete next.values[change.attribute];
      break;
    case 'workEmail':
      if (next.emails.some(isWork)) {
        next.emails = next.emails.map((e) => (isWork(e) ? withValue(e, change.value) : e));
      } else if (change.value !== null) {
        next.emails.push({ type: 'work', value: change.value });
      }
      break;
    case 'removeWorkEmailValue':
      next.emails = next.emails.map((e) => (isWork(e) ? withValue(e, null) : e));
      break;
    case 'emails':
      next.emails = change.op === 'add' ? [...next.emails, ...change.list] : change.list.map((e) => ({ ...e }));
      break;
    case 'put':
      next.values = { ...change.values };
      next.emails = change.emails.map((e) => ({ ...e }));
      break;
  }
  if (next.values.active === false) next.deactivatedBefore = true;
  return next;
}

function withValue(email: Email, value: string | null): Email {
  const { value: _, ...rest } = email;
  return value === null ? rest : { ...rest, value };
}

/** Whether verification may go on: `active` as held, or, when absent, never deactivated. */
export function effectiveActive(model: Model): boolean {
  const active = model.values.active;
  return typeof active === 'boolean' ? active : !model.deactivatedBefore;
}

/** The address verification uses: the work email, else the primary one, else the first. */
export function verificationEmail(model: Model): string | undefined {
  const withValues = model.emails.filter((e) => typeof e.value === 'string');
  return (withValues.find(isWork) ?? withValues.find((e) => e.primary === true) ?? withValues[0])?.value;
}

/** The User's covered attributes as GET must answer them. */
export function expectedUser(model: Model): Record<string, unknown> {
  const { values } = model;
  const pick = (parts: readonly Simple[]) => Object.fromEntries(parts.filter((p) => values[p] !== undefined).map((p) => [p, values[p]]));
  const name = pick(NAME_PARTS);
  const enterprise = pick(ENTERPRISE_PARTS);
  const user: Record<string, unknown> = { userName: values.userName, active: effectiveActive(model) };
  for (const simple of ['externalId', 'displayName'] as const) if (values[simple] !== undefined) user[simple] = values[simple];
  if (Object.keys(name).length > 0) user.name = name;
  if (model.emails.length > 0) user.emails = model.emails;
  if (Object.keys(enterprise).length > 0) user[ENTERPRISE] = enterprise;
  return user;
}

/** The same view of a User the service answered, for comparison with expectedUser. */
export function coveredAttributes(user: Record<string, unknown>): Record<string, unknown> {
  const covered = ['userName', 'active', 'externalId', 'displayName', 'name', 'emails', ENTERPRISE];
  return Object.fromEntries(Object.entries(user).filter(([key]) => covered.includes(key)));
}
