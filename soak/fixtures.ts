import { Secret, TOTP } from 'otpauth';
import { SoftwareAuthenticator } from '../src/dev/software-authenticator.ts';
import { importCredential, policyHash, signedInWithTwoFactors } from '../test/helpers/authn.ts';
import { type ClientCredentials, mintPersonToken, registerClient } from '../test/helpers/oauth.ts';
import { createOrg, type Replica } from '../test/helpers/replicas.ts';
import type { TestOrg } from '../test/helpers/service.ts';
import { configurePasskeys, importParams } from '../test/methods/passkey/passkeys.ts';
import { type ScimTenant, scimTenant } from '../test/scim/scim-helpers.ts';

export const PASSWORD = 'correct horse battery staple';
/** Each verifier may make 30 verification attempts a minute; the load makes up to about 150. */
const VERIFIERS = 10;

/** A person who logs in every way, and whose JWT is a caller's subject token at the gateways. */
export interface SoakPerson {
  id: string;
  email: string;
  totp: TOTP;
  /** The last TOTP time step used: a step logs in once, so a login waits for the next one. */
  lastStep: number;
  authenticator: SoftwareAuthenticator;
  /** A TOTP or passkey login of this person is under way (their counters must not race). */
  busy: boolean;
  jwt: string;
}

export interface Fixtures {
  org: TestOrg;
  /** The gateways' own client. */
  gatewayClient: ClientCredentials;
  /** A client whose client_credentials tokens are opaque rows in the database. */
  caller: ClientCredentials;
  persons: SoakPerson[];
  /** An argon2id hash of PASSWORD at the service's own policy, so a login does not rehash it. */
  passwordHash: string;
  scim: ScimTenant;
  /** Verifiers' headers at the helpdesk door: a helpdesk has several, each with a limit of their own. */
  verifiers: Record<string, string>[];
}

/** Everything the load needs, made through the API of the first replica. */
export async function makeFixtures(databaseUrl: string, replica: Replica, people: number): Promise<Fixtures> {
  const t = replica.t;
  const org = await createOrg(databaseUrl);
  await configurePasskeys(t, org);
  const passwordHash = await policyHash(PASSWORD);
  const [gatewayClient, caller, scim] = await Promise.all([
    registerClient(t, org, { scopes: ['orders:read'] }),
    registerClient(t, org, { client_name: 'soak caller', grant_types: ['client_credentials'], scopes: ['orders:read'] }),
    scimTenant(t, org),
  ]);
  const persons: SoakPerson[] = [];
  for (let i = 0; i < people; i++) {
    const email = `person${i}.${Math.random().toString(36).slice(2)}@example.com`;
    const created = await t.call('POST', '/persons', { as: org, body: { handles: [{ type: 'email_address', value: email }] } });
    if (created.status !== 201) throw new Error(`making a person failed: ${JSON.stringify(created.body)}`);
    const id = created.body.result.id as string;
    const totp = new TOTP({ issuer: 'Soak', label: email, secret: new Secret() });
    const authenticator = new SoftwareAuthenticator();
    await importCredential(t, org, id, 'password', { password_hash: passwordHash });
    await importCredential(t, org, id, 'totp', { key_uri: totp.toString(), recovery_codes_total: 0, unused_recovery_codes: [] });
    await importCredential(t, org, id, 'public-key', importParams(authenticator));
    persons.push({ id, email, totp, lastStep: 0, authenticator, busy: false, jwt: await mintPersonToken(t, org, id) });
  }
  const verifiers: Record<string, string>[] = [];
  for (let i = 0; i < VERIFIERS; i++) {
    const email = `verifier${i}.${Math.random().toString(36).slice(2)}@example.org`;
    const created = await t.call('POST', '/persons', {
      as: org,
      body: { handles: [{ type: 'email_address', value: email }], roles: ['verifier'], console: true },
    });
    if (created.status !== 201) throw new Error(`making a verifier failed: ${JSON.stringify(created.body)}`);
    // The helpdesk door takes a sign-in with two factors only (design §5).
    const jwt = await signedInWithTwoFactors(t, org, created.body.result.id, email);
    verifiers.push({ 'service-orgid': org.orgId, authorization: `Bearer ${jwt}` });
  }
  return { org, gatewayClient, caller, persons, passwordHash, scim, verifiers };
}
