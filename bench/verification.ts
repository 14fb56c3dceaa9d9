import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { hashSecret, newId, newSecret } from '../src/crypto/ids.ts';
import { identityFields, normaliseUser } from '../src/scim-user/user-resource.ts';
import { openStore } from '../src/store/open-store.ts';
import { verificationHasher } from '../src/verification/code.ts';
import { runCliJson } from './lib/cli.ts';
import { cpuPerRequest } from './lib/cpu.ts';
import { type LoadOptions, type LoadResult, load, table } from './lib/load.ts';
import { freshPostgresDatabase, settlePostgresDatabase } from './lib/postgres.ts';
import { scratchDirectory } from './lib/scratch.ts';
import { BENCH_SECRET, startServiceProcess } from './lib/service-process.ts';

/** Users in the one SCIM connection: the list is filtered over all of them. */
const USERS = 100_000;
/**
 * Verify rates each database's sizing covers without running out of open verifications or
 * operator budget (each identity has one verification, so the rows need fresh identities).
 */
const MAX_VERIFY_RPS: Record<string, number> = { sqlite: 10_000, postgres: 4_000 };
/** Wrong codes each verification of the wrong-code row gets at most: under the five that close it. */
const WRONG_PER_VERIFICATION = 4;
/** The per-operator limit (src/verification/deps.ts OPERATOR_LIMIT): 30 a minute. */
const OPERATOR_BUDGET = 30;
/** Each row is preceded by this many seconds of its own requests, not counted: JIT, caches and pools warm. */
const WARM_UP_SECONDS = 2;

type Row = LoadResult & { rssMiB: number; cpuUs: number; statusLine: string };

/**
 * Email verification's two hot paths at 50 connections, SMTP excluded: verify through the
 * integration door, with the right code on fresh verifications (operator check, rate limits,
 * code, the deny-gate's read of the identity, spend) and with a wrong code on open ones
 * (the same up to the code, then the counted attempt); and the SCIM list that providers poll,
 * `filter=userName eq "…"` over 100,000 users of one connection. The verified users are those
 * of a second connection, sized to the database's rate. Users, operators and verifications
 * are written straight through the store before the service starts (built by
 * the SCIM module's own normalisation, codes hashed with the service's key), so setup takes
 * seconds and sends no email; PostgreSQL is then analysed and checkpointed. Operators are
 * many (each under its 30 attempts a minute) and each identity gets at most 4 attempts, so
 * no answer is a rate limit's 429. Each row follows 2 s of its own requests, not counted.
 */
export async function verificationBenchmark(options: { seconds: number; postgresUrl?: string }): Promise<string> {
  const databases: [string, Record<string, string>, string][] = [];
  const file = `sqlite:${join(scratchDirectory('tessera-bench-verification-'), 'bench.db')}`;
  databases.push(['sqlite', { TESSERA_DATABASE: file }, file]);
  if (options.postgresUrl) {
    const url = await freshPostgresDatabase(options.postgresUrl);
    databases.push(['postgres', { DATABASE_URL: url }, url]);
  }
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const [name, env, url] of databases) {
    const started = performance.now();
    const setup = await prepare(env, url, MAX_VERIFY_RPS[name]! * (options.seconds + WARM_UP_SECONDS));
    if (name === 'postgres') await settlePostgresDatabase(url);
    notes.push(
      `- ${name} setup: ${USERS.toLocaleString('en')} users in the listed connection; ${(setup.right.length + setup.wrong.length).toLocaleString('en')} users, each with an open verification, in a second; ${setup.operators.length.toLocaleString('en')} operators; written through the store in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
    const service = await startServiceProcess(env);
    try {
      const row = async (options: LoadOptions): Promise<void> => {
        await load({ ...options, seconds: WARM_UP_SECONDS });
        const r = await cpuPerRequest(service.cpuSeconds, () => load(options));
        rows.push({ ...r, rssMiB: service.rssMiB(), statusLine: `${r.name}: ${JSON.stringify(r.statuses)}` });
      };
      const integration = { 'service-orgid': setup.orgId, 'service-api-key': setup.integrationKey, 'content-type': 'application/json' };
      let operator = 0;
      const nextOperator = () => setup.operators[operator++ % setup.operators.length]!;
      const verifyBody = (verification: { id: string; code: string }) =>
        JSON.stringify({
          verification_id: verification.id,
          code: verification.code,
          connection_id: setup.verifyConnectionId,
          operator: { email: nextOperator(), assertion: 'integration_asserted' },
        });

      await row({
        name: `${name}: SCIM GET /Users?filter=userName eq "…" (${USERS.toLocaleString('en')} users)`,
        url: `${service.url}/scim/v2/Users`,
        headers: { authorization: `Bearer ${setup.scimToken}` },
        seconds: options.seconds,
        perRequestPath: () => `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${userName(randomInt(USERS))}"`)}`,
      });
      let right = 0;
      await row({
        name: `${name}: verify, right code (deny-gate read, spend)`,
        url: `${service.url}/integrations/email-verifications/verify`,
        method: 'POST',
        headers: integration,
        seconds: options.seconds,
        body: () => verifyBody(setup.right[right++ % setup.right.length]!),
      });
      let wrong = 0;
      await row({
        name: `${name}: verify, wrong code (counted attempt)`,
        url: `${service.url}/integrations/email-verifications/verify`,
        method: 'POST',
        headers: integration,
        seconds: options.seconds,
        body: () => {
          const verification = setup.wrong[wrong++ % setup.wrong.length]!;
          return verifyBody({ id: verification.id, code: wrongCode(verification.code) });
        },
      });
      if (right > setup.right.length || wrong > setup.wrong.length * WRONG_PER_VERIFICATION) {
        notes.push(`- ${name}: the load outran the prepared verifications (${right} right, ${wrong} wrong requests): raise MAX_VERIFY_RPS.${name}`);
      }
    } finally {
      await service.stop();
    }
  }
  const verdict = (r: Row) => `${r.p99} ms: ${r.p99 < 20 && r.non2xx === 0 && r.errors === 0 ? 'met' : 'not met'}`;
  return [
    table(rows),
    '',
    ...notes,
    '- answers by status:',
    ...rows.map((r) => `  - ${r.statusLine}`),
    '- target p99 < 20 ms at 50 connections (issue 12), every answer 2xx:',
    ...rows.map((r) => `  - ${r.name}: ${verdict(r)}`),
  ].join('\n');
}

const userName = (i: number) => `user${i}@bench.example`;
const verifyUserName = (i: number) => `verify${i}@bench.example`;
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

interface Setup {
  orgId: string;
  integrationKey: string;
  scimToken: string;
  /** The connection of the verify rows' identities, apart from the 100,000 the SCIM row lists. */
  verifyConnectionId: string;
  /** Console persons holding verifier: enough that none reaches 30 attempts a minute. */
  operators: string[];
  /** Fresh verifications and their codes, one request each. */
  right: { id: string; code: string }[];
  /** Open verifications for wrong codes, at most WRONG_PER_VERIFICATION each. */
  wrong: { id: string; code: string }[];
}

/**
 * An organisation (by the CLI, as an operator makes one), then everything else through the
 * store: the listed connection's USERS users, and for `requests` verify requests as many
 * fresh verifications (one per user of a second connection) as the rows can use.
 */
async function prepare(env: Record<string, string>, url: string, requests: number): Promise<Setup> {
  const { org_id: orgId } = await runCliJson(['admin', 'create-org', '--name', 'bench-verification', '--json'], env);
  const { store } = await openStore(url);
  try {
    const now = Date.now();
    const connection = async (name: string, token: string) => {
      const id = newId('con', now);
      await store.createConnection({ id, orgId, name, type: 'scim', tokenHash: hashSecret(token), baseUrl: null, sealedBearerToken: null, createdAt: now });
      return id;
    };
    const scimToken = newSecret('tscim');
    const listedConnectionId = await connection('bench directory', scimToken);
    const verifyConnectionId = await connection('bench verification directory', newSecret('tscim'));
    const integrationKey = newSecret('tsi');
    await store.createApiKey({
      id: newId('key', now),
      orgId,
      name: 'bench-integration',
      kind: 'integration',
      secretHash: hashSecret(integrationKey),
      createdAt: now,
    });

    const rightCount = requests;
    const wrongCount = Math.ceil(requests / WRONG_PER_VERIFICATION);
    const operators = Array.from(
      { length: Math.ceil((rightCount + wrongCount * WRONG_PER_VERIFICATION) / OPERATOR_BUDGET) },
      (_, i) => `operator${i}@bench.example`,
    );
    await inBatches(operators.length, (i) =>
      store.createPerson({
        id: newId('per'),
        orgId,
        handles: [{ type: 'email_address', value: operators[i]! }],
        roles: ['verifier'],
        console: true,
        createdAt: Date.now(),
      }),
    );

    const users = async (connectionId: string, count: number, name: (i: number) => string) => {
      const ids: string[] = [];
      await inBatches(count, async (i) => {
        const at = Date.now();
        const attributes = normaliseUser({
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
          externalId: `ext-${i}`,
          userName: name(i),
          active: true,
          emails: [{ primary: true, type: 'work', value: name(i) }],
          name: { givenName: 'Bench', familyName: `User ${i}` },
        });
        ids[i] = newId('idn', at);
        await store.createIdentity({
          id: ids[i]!,
          orgId,
          connectionId,
          ...identityFields(attributes),
          deactivatedAt: null,
          attributes,
          createdAt: at,
          updatedAt: at,
        });
      });
      return ids;
    };
    await users(listedConnectionId, USERS, userName);
    const verifyUsers = await users(verifyConnectionId, rightCount + wrongCount, verifyUserName);

    const hasher = verificationHasher(BENCH_SECRET);
    const open = async (count: number, from: number) => {
      const made: { id: string; code: string }[] = [];
      await inBatches(count, async (i) => {
        const at = Date.now();
        const id = newId('evf', at);
        const code = String(randomInt(1_000_000)).padStart(6, '0');
        made[i] = { id, code };
        await store.createEmailVerification(
          verificationRow(orgId, verifyConnectionId, verifyUsers[from + i]!, verifyUserName(from + i), id, hasher.hashCode(id, code), at),
        );
      });
      return made;
    };
    const right = await open(rightCount, 0);
    const wrong = await open(wrongCount, rightCount);
    return { orgId, integrationKey, scimToken, verifyConnectionId, operators, right, wrong };
  } finally {
    await store.close();
  }
}

function verificationRow(orgId: string, connectionId: string, identityId: string, email: string, id: string, codeHash: string, at: number) {
  return {
    id,
    orgId,
    connectionId,
    identityId,
    emailSentTo: email,
    codeHash,
    createdAt: at,
    // Valid 10 minutes, as initiate makes them: the rows run well within that.
    expiresAt: at + 10 * 60_000,
    attempts: 0,
    state: 'open' as const,
    closedReason: null,
    endedAt: null,
  };
}

/** Runs `write(0…count-1)` 500 at a time: SQLite commits each batch as one transaction, PostgreSQL spreads it over the pool. */
async function inBatches(count: number, write: (i: number) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < count; start += 500) {
    await Promise.all(Array.from({ length: Math.min(500, count - start) }, (_, k) => write(start + k)));
  }
}
