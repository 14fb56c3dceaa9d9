import type { MigrationSource } from './dialect.ts';

export const clientsBySpiffeId: MigrationSource = {
  version: 17,
  name: 'a SPIFFE client is found by the SPIFFE ID its JWT-SVID names when the request sends no client_id',
  // Not unique: two organisations may each register a workload of a shared trust domain, and a
  // 409 on the second would tell it that the other exists. A request naming no client_id then
  // finds more than one and is asked for it (oauth/spiffe-client-auth.ts).
  statements: () => ['CREATE INDEX oauth_clients_by_spiffe_id ON oauth_clients (spiffe_id)'],
};
