import { type FixtureRows, restoreRelease } from './release-fixtures.ts';

/** Where release 10 listened when the fixture was made: its JWTs name this issuer. */
export const RELEASE_10_PORT = 18390;
/** The last schema version release 10 knew. */
export const RELEASE_10_SCHEMA = 10;

/** What make-release-10-fixture.ts recorded of a database release 10 made. */
export interface Release10Fixture {
  madeAt: number;
  issuer: string;
  orgId: string;
  apiKey: string;
  persons: { tia: string; kai: string; vic: string; pat: string };
  passwords: { tia: string; kai: string; vic: string; pat: string };
  /** tia's TOTP recovery codes not spent while the fixture was made. */
  tiaRecoveryCodes: string[];
  client: { id: string; secret: string };
  tokens: { tiaPassword: string; tiaMinted: string; tiaDelegatedOpaque: string; kaiPassword: string; vicPassword: string; patPassword: string };
  consoleCookies: { tia: string; kai: string; vic: string };
  rows: FixtureRows;
}

/** The database at `url` as release 10 left it (release-fixtures.ts). */
export function restoreRelease10(url: string, fixture: Release10Fixture): Promise<void> {
  return restoreRelease(url, RELEASE_10_SCHEMA, fixture.rows);
}
