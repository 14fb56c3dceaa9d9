import { type FixtureRows, restoreRelease } from './release-fixtures.ts';

/** The last schema version release 11 knew. */
export const RELEASE_11_SCHEMA = 11;

/** What make-release-11-scim-fixture.ts recorded of the SCIM identities release 11 stored. */
export interface Release11ScimFixture {
  orgId: string;
  apiKey: string;
  connectionId: string;
  scimToken: string;
  users: { ada: string; bob: string; cat: string; dan: string; eve: string; gil: string; hal: string };
  rows: FixtureRows;
}

/** The database at `url` as release 11 left it (release-fixtures.ts). */
export function restoreRelease11(url: string, fixture: Release11ScimFixture): Promise<void> {
  return restoreRelease(url, RELEASE_11_SCHEMA, fixture.rows);
}
