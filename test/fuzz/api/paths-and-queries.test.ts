import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { backends } from '../../helpers/backends.ts';
import { createPerson, registerClient } from '../../helpers/oauth.ts';
import type { TestOrg } from '../../helpers/service.ts';
import { assertApiRefusal, assertNothingWritten, type FuzzService, rawCall, runs, startFuzzService } from './fuzz-service.ts';

/** An operation of GET /openapi.json, with the names of its path and query parameters. */
interface Operation {
  method: string;
  route: string;
  path: string[];
  query: string[];
}

/** Path segments as clients and attackers write them: odd percent-encodings, dot segments, over-long values. */
const ODD_SEGMENTS = ['%', '%zz', '%00', '%2F', '%2f..%2f', '..', '.', '%2e%2e', 'a%20b', '%C0%AF', '%E2%80%AE', '~', 'x'.repeat(257), '%FF'];
/** Operations answered outside the JSON API's envelope (the OAuth endpoints) or without parameters worth fuzzing. */
const ELSEWHERE = /^\/(oauth2\/tokens|metrics|healthz|readyz|\.well-known)/;

for (const backend of backends()) {
  describe(`Path and query parameters of every operation, fuzzed, on ${backend.name}`, () => {
    let t: FuzzService;
    let org: TestOrg;
    const operations: Operation[] = [];
    const ids: string[] = [];

    before(async () => {
      t = await startFuzzService(backend);
      org = await t.org();
      ids.push(await createPerson(t, org), (await registerClient(t, org)).id, (await t.org()).orgId);
      const document = (await t.call('GET', '/openapi.json')).body;
      for (const [route, byMethod] of Object.entries<Record<string, any>>(document.paths)) {
        if (ELSEWHERE.test(route)) continue;
        for (const [method, operation] of Object.entries<any>(byMethod)) {
          const names = (where: string) => (operation.parameters ?? []).filter((p: { in: string }) => p.in === where).map((p: { name: string }) => p.name);
          operations.push({ method: method.toUpperCase(), route, path: names('path'), query: names('query') });
        }
      }
      assert.ok(operations.some((o) => o.path.length > 0) && operations.some((o) => o.query.length > 0), 'the document lists path and query parameters');
    });
    after(() => t?.close());

    const segment = fc.oneof(
      { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(encodeURIComponent) },
      { weight: 2, arbitrary: fc.constantFrom(...ODD_SEGMENTS) },
      { weight: 1, arbitrary: fc.constant(null).map(() => ids[0]!) },
    );
    const queryPart = (names: string[]) =>
      fc.tuple(
        fc.oneof(fc.constantFrom(...names, 'limit', 'cursor', 'type', 'x'), fc.string({ maxLength: 8 }).map(encodeURIComponent)),
        fc.oneof(
          fc.constantFrom(
            '0',
            '1',
            '-1',
            '100',
            '101',
            '1e2',
            '1.5',
            '',
            'true',
            '%00',
            '%zz',
            'WyJwZXJzb25zIiwiYSIsIiJd',
            Buffer.from('[]').toString('base64url'),
          ),
          fc.string({ unit: 'binary', maxLength: 20 }).map(encodeURIComponent),
        ),
      );

    it('answers any path parameter and query string with a success or a catalogued 4xx naming the part, never a 5xx, writing nothing on refusal', async () => {
      const cases = fc.constantFrom(...operations).chain((operation) =>
        fc.record({
          operation: fc.constant(operation),
          segments: fc.array(segment, { minLength: operation.path.length, maxLength: operation.path.length }),
          query: fc.array(queryPart(operation.query), { maxLength: 4 }),
        }),
      );
      await fc.assert(
        fc.asyncProperty(cases, async ({ operation, segments, query }) => {
          let i = 0;
          const path = operation.route.replace(/\{\w+\}/g, () => segments[i++]!);
          const target = `${path}${query.length > 0 ? `?${query.map(([n, v]) => `${n}=${v}`).join('&')}` : ''}`;
          const context = `${operation.method} ${target.slice(0, 300)}`;
          const before = await t.snapshot();
          const response = await rawCall(t, operation.method, target, org.headers);
          assert.ok(response.status < 500, `${context} → ${response.status} ${JSON.stringify(response.body)}`);
          if (response.status < 400) return;
          assertApiRefusal(response, context);
          assertNothingWritten(before, await t.snapshot(), context);
        }),
        { numRuns: runs(backend, 300) },
      );
    });
  });
}
