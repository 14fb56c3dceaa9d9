import pg from 'pg';
import { call, form } from './client.ts';
import type { Fixtures } from './fixtures.ts';
import { Ledger } from './ledger.ts';

export interface Invariant {
  name: string;
  held: boolean;
  detail: string;
}

/** Every write answered 2xx, looked for in the database (and opaque tokens at introspection). */
export async function acknowledgedWritesKept(databaseUrl: string, ledger: Ledger, replicaUrl: string, fixtures: Fixtures): Promise<Invariant> {
  const { persons, credentials, identities, removed, tokens } = ledger.acked;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const found = async (table: string, ids: readonly string[]) =>
    Number((await client.query(`SELECT count(*) AS n FROM ${table} WHERE id = ANY($1)`, [ids])).rows[0].n);
  try {
    const missing = [
      ['persons', persons.length - (await found('persons', persons))],
      ['credentials', credentials.length - (await found('credentials', credentials))],
      ['SCIM identities', identities.size - (await found('scim_identities', [...identities]))],
      ['removals (identity still there)', await found('scim_identities', [...removed.keys()])],
      ['client_credentials tokens (not active)', await inactiveTokens(tokens, replicaUrl, fixtures)],
    ] as const;
    const lost = missing.filter(([, n]) => n > 0);
    const checked = `${persons.length} persons, ${credentials.length} credentials, ${identities.size} identities, ${removed.size} removals, ${tokens.length} tokens; ${ledger.acked.inDoubt} writes that got no answer (a replica killed under them), checked neither way`;
    return {
      name: 'every write answered 2xx is in the database',
      held: lost.length === 0,
      detail: lost.length === 0 ? checked : `lost: ${lost.map(([what, n]) => `${n} ${what}`).join(', ')} (of ${checked})`,
    };
  } finally {
    await client.end();
  }
}

async function inactiveTokens(tokens: readonly string[], replicaUrl: string, fixtures: Fixtures): Promise<number> {
  const scratch = new Ledger();
  let inactive = 0;
  for (let i = 0; i < tokens.length; i += 20) {
    const answers = await Promise.all(
      tokens.slice(i, i + 20).map((token) => call(scratch, 'introspection', `${replicaUrl}/oauth2/tokens/introspect`, form({ token }, fixtures.caller))),
    );
    inactive += answers.filter((answer) => answer?.status !== 200 || answer.body.active !== true).length;
  }
  return inactive;
}

/** Polls `url` until it answers 200, for at most `timeoutMs`: undefined then, else what it last answered. */
export async function readyWithin(url: string, timeoutMs: number): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  let last = 'nothing';
  while (Date.now() < deadline) {
    const answer = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      async (response) => (response.status === 200 ? undefined : `${response.status} ${(await response.text()).slice(0, 300)}`),
      (error: Error) => `no answer (${error.message})`,
    );
    if (answer === undefined) return undefined;
    last = answer;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return last;
}
