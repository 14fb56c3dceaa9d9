import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type OAuthDeps, organizationConfig } from '../../../src/oauth/grants/grant.ts';
import type { Store } from '../../../src/store/store.ts';

describe('organizationConfig', () => {
  it('names the organisation that vanished during a token request (it is logged with the 500)', async () => {
    const store = { getOrganization: async () => undefined } as unknown as Store;
    const context = { deps: { store } as OAuthDeps, client: undefined, clientConfig: undefined };
    await assert.rejects(organizationConfig(context, 'org_gone'), new Error('organisation org_gone vanished during a token request'));
  });
});
