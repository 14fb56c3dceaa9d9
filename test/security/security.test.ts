import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { apiRows } from './api.rows.ts';
import { clientAssertionRows } from './client-assertion.rows.ts';
import { forwardAuthRows } from './forward-auth.rows.ts';
import { forwardAuthListenerRows } from './forward-auth-listener.rows.ts';
import { gatewayRows } from './gateway.rows.ts';
import { type SecurityStack, startSecurityStack } from './harness.ts';
import { invitationRows } from './invitations.rows.ts';
import { listenerRows } from './listeners.rows.ts';
import { loginRows } from './logins.rows.ts';
import type { SecurityRow } from './rows.ts';
import { tokenEndpointRows } from './token-endpoint.rows.ts';

/** Every case of the security review, by area; a new finding is a new row in its table. */
const TABLES: [string, SecurityRow[]][] = [
  ['gateway', gatewayRows],
  ['token endpoint', tokenEndpointRows],
  ['client assertions', clientAssertionRows],
  ['api', apiRows],
  ['logins and console', loginRows],
  ['listeners', listenerRows],
  ['invitations', invitationRows],
  ['forward auth', forwardAuthRows],
  ['forward-auth listener', forwardAuthListenerRows],
];

for (const backend of backends()) {
  describe(`Security review, kept, on ${backend.name}`, () => {
    let stack: SecurityStack;
    before(async () => (stack = await startSecurityStack(backend)));
    after(() => stack.close());
    for (const [area, rows] of TABLES) {
      for (const row of rows) it(`${area}: ${row.request} → ${row.expect}`, () => row.check(stack));
    }
  });
}
