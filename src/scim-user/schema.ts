/**
 * The attributes of RFC 7643's User (§4.1) and Enterprise User (§4.3) schemas that this
 * server knows: what bodies are checked against, what PATCH paths may name (anything else is
 * invalidPath), and what /Schemas publishes. Names compare case-insensitively (RFC 7643 §2.1).
 */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

export interface AttributeDef {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference';
  multiValued: boolean;
  required?: boolean;
  /** Case-insensitive values (userName, emails, type values). */
  caseExact?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'writeOnly';
  /** never: password, accepted and dropped, never stored or echoed. */
  returned?: 'never' | 'default';
  subAttributes?: AttributeDef[];
  /** Longest string accepted. */
  maxLength?: number;
}

const str = (name: string, extra: Partial<AttributeDef> = {}): AttributeDef => ({ name, type: 'string', multiValued: false, ...extra });
const bool = (name: string): AttributeDef => ({ name, type: 'boolean', multiValued: false });
const ref = (name: string): AttributeDef => ({ name, type: 'reference', multiValued: false });
const multi = (name: string, subs: AttributeDef[], extra: Partial<AttributeDef> = {}): AttributeDef => ({
  name,
  type: 'complex',
  multiValued: true,
  subAttributes: subs,
  ...extra,
});
const plural = [str('value'), str('display'), str('type'), bool('primary')];

export const userAttributes: readonly AttributeDef[] = [
  str('userName', { required: true, maxLength: 256 }),
  str('externalId', { caseExact: true, maxLength: 256 }),
  {
    name: 'name',
    type: 'complex',
    multiValued: false,
    subAttributes: ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'].map((n) => str(n)),
  },
  str('displayName'),
  str('nickName'),
  ref('profileUrl'),
  str('title'),
  str('userType'),
  str('preferredLanguage'),
  str('locale'),
  str('timezone'),
  bool('active'),
  str('password', { mutability: 'writeOnly', returned: 'never' }),
  multi('emails', plural),
  multi('phoneNumbers', plural),
  multi('ims', plural),
  multi('photos', plural),
  multi('addresses', [...['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type'].map((n) => str(n)), bool('primary')]),
  multi('groups', [str('value'), ref('$ref'), str('display'), str('type')], { mutability: 'readOnly' }),
  multi('entitlements', plural),
  multi('roles', plural),
  multi('x509Certificates', plural),
];

export const enterpriseAttributes: readonly AttributeDef[] = [
  ...['employeeNumber', 'costCenter', 'organization', 'division', 'department'].map((n) => str(n)),
  { name: 'manager', type: 'complex', multiValued: false, subAttributes: [str('value'), ref('$ref'), str('displayName')] },
];

export function findAttribute(defs: readonly AttributeDef[] | undefined, name: string): AttributeDef | undefined {
  const lower = name.toLowerCase();
  return defs?.find((d) => d.name.toLowerCase() === lower);
}

/** Read-only or server-kept members a client may send (Okta's PUT does) but never changes. */
export const ignoredMembers = new Set(['id', 'meta', 'schemas', 'groups']);

/** An extension schema URN as a top-level member name, e.g. a provider's custom extension. */
export function isSchemaUrn(name: string): boolean {
  return /^urn:[a-z0-9][a-z0-9-]{0,31}:[^\s]+$/i.test(name);
}
