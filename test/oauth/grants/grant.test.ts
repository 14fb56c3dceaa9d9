import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type OAuthDeps, type OAuthStore, organizationConfig } from '../../../src/oauth/grants/grant.ts';
import type { OAuthClient, OrganizationConfig } from '../../../src/store/types.ts';

describe('organizationConfig', () => {
  const clientConfig = { token_lifetime_ceiling: 600 } as OrganizationConfig;
  const storedConfig = { token_lifetime_ceiling: 900 } as OrganizationConfig;
  const client = { id: 'cli_a', orgId: 'org_a' } as OAuthClient;
  /** A store holding org_a and org_b with `storedConfig`, recording the organisations read. */
  const store = (read: string[]) =>
    ({
      getOrganization: async (id: string) => {
        read.push(id);
        return ['org_a', 'org_b'].includes(id) ? { id, config: storedConfig } : undefined;
      },
    }) as unknown as OAuthStore;

  it("takes the authenticated client's configuration for the client's organisation, without reading it again", async () => {
    const read: string[] = [];
    assert.equal(await organizationConfig({ deps: { store: store(read) } as OAuthDeps, client, clientConfig }, 'org_a'), clientConfig);
    assert.deepEqual(read, []);
  });

  it('reads the configuration of any other organisation, and whenever no client comes with the configuration', async () => {
    const read: string[] = [];
    assert.equal(await organizationConfig({ deps: { store: store(read) } as OAuthDeps, client, clientConfig }, 'org_b'), storedConfig);
    assert.equal(await organizationConfig({ deps: { store: store(read) } as OAuthDeps, client: undefined, clientConfig: undefined }, 'org_a'), storedConfig);
    // A configuration without the client it belongs to does not say whose it is.
    assert.equal(await organizationConfig({ deps: { store: store(read) } as OAuthDeps, client: undefined, clientConfig }, 'org_a'), storedConfig);
    assert.deepEqual(read, ['org_b', 'org_a', 'org_a']);
  });

  it('names the organisation that vanished during a token request (it is logged with the 500)', async () => {
    const context = { deps: { store: store([]) } as OAuthDeps, client: undefined, clientConfig: undefined };
    await assert.rejects(organizationConfig(context, 'org_gone'), new Error('organisation org_gone vanished during a token request'));
  });
});
