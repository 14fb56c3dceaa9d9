import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { organizationConfigDefaults } from '../../src/config/defaults.ts';
import { checkOrganizationConfig } from '../../src/organizations/config-rules.ts';

const WORKLOAD = 'spiffe://example.org/ns/prod/sa/billing';

describe("allowed_spiffe_ids follows the verifier's grammar", () => {
  const check = (id: string, trustDomains: string[] = ['example.org']) =>
    checkOrganizationConfig(
      {
        ...organizationConfigDefaults,
        svid_jwks_urls: Object.fromEntries(trustDomains.map((domain) => [domain, 'https://keys.example/jwks'])),
        allowed_spiffe_ids: [id],
      },
      { dev: false },
    )?.rule;

  it('accepts a workload ID of a configured trust domain', () => {
    assert.equal(check(WORKLOAD), undefined);
  });

  it('refuses what the verifier would refuse in a JWT-SVID', () => {
    for (const bad of ['spiffe://example.org', 'spiffe://example.org/a/', 'spiffe://example.org/a/../b', `spiffe://${'a'.repeat(256)}/w`]) {
      assert.match(check(bad, ['example.org', 'a'.repeat(256)]) ?? '', /^must be a SPIFFE ID/, bad);
    }
  });

  it('refuses a trust domain named like an Object.prototype member that is not configured', () => {
    assert.match(check('spiffe://constructor/w') ?? '', /trust domain constructor has no entry in svid_jwks_urls/);
  });
});
