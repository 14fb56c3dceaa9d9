import assert from 'node:assert/strict';
import { request as rawRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { errorCodes, startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const [sqlite] = backends();

describe('Malformed requests', () => {
  let t: TestService;
  let org: TestOrg;
  const persons = async () => (await t.call('GET', '/persons', { as: org })).body.meta.cursor_pagination.total_count as number;

  before(async () => {
    t = await startTestService(sqlite!, { TESSERA_BODY_LIMIT: '2048' });
    org = await t.org();
  });
  after(() => t.close());

  const cases: [string, { body: string; headers?: Record<string, string> }, number, string, RegExp][] = [
    ['malformed JSON', { body: '{"handles": [' }, 400, 'MALFORMED_JSON', /^body: is not valid JSON$/],
    ['an empty JSON body', { body: '' }, 400, 'INVALID_FIELD', /^body: must be an object$/],
    ['a __proto__ key', { body: '{"__proto__": {"admin": true}}' }, 400, 'MALFORMED_JSON', /^body: /],
    ['a constructor.prototype key', { body: '{"constructor": {"prototype": {"admin": true}}}' }, 400, 'MALFORMED_JSON', /^body: /],
    ['a body over the limit', { body: JSON.stringify({ handles: [], pad: 'x'.repeat(4096) }) }, 413, 'PAYLOAD_TOO_LARGE', /^body: is larger than/],
    [
      'form encoding',
      { body: 'handles=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      /^header Content-Type: must be application\/json$/,
    ],
    ['text/plain', { body: '{}', headers: { 'content-type': 'text/plain' } }, 415, 'UNSUPPORTED_MEDIA_TYPE', /Content-Type/],
    ['a JSON string', { body: '"person"' }, 400, 'INVALID_FIELD', /^body: must be an object$/],
    ['JSON null', { body: 'null' }, 400, 'INVALID_FIELD', /^body: must be an object$/],
  ];
  for (const [name, { body, headers }, status, code, message] of cases) {
    it(`answers ${status} ${code} for ${name} and writes nothing`, async () => {
      const before = await persons();
      const response = await t.call('POST', '/persons', { as: { ...org.headers, 'content-type': 'application/json', ...headers }, body });
      assert.equal(response.status, status);
      assert.deepEqual(errorCodes(response.body), [code]);
      assert.equal(response.body.errors[0].httpcode, status);
      assert.match(response.body.errors[0].message, message);
      assert.equal(await persons(), before);
    });
  }

  it('never echoes a body fragment in a JSON error (it could hold a secret)', async () => {
    const response = await t.call('POST', '/persons', { as: org, body: '{"handles": sup3r-s3cret' });
    assert.equal(response.status, 400);
    assert.ok(!JSON.stringify(response.body).includes('s3cret'));
  });

  it('answers an unknown route or method with a 404 envelope', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['PUT', '/persons'],
      ['GET', '/persons/a/b'],
    ] as const) {
      const response = await t.call(method, path, { as: org });
      assert.equal(response.status, 404, `${method} ${path}`);
      assert.deepEqual(errorCodes(response.body), ['ROUTE_NOT_FOUND']);
    }
  });

  it('keeps nothing of a request whose client vanishes mid-body, and keeps serving', async () => {
    const before = await persons();
    await new Promise<void>((resolve) => {
      const req = rawRequest(`${t.url}/persons`, { method: 'POST', headers: { ...org.headers, 'content-type': 'application/json', 'content-length': '500' } });
      req.on('error', () => resolve());
      req.write('{"handles": [{"type": "email_address", "value": "half@exa');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 50);
    });
    assert.equal((await t.call('GET', '/healthz')).status, 200);
    assert.equal(await persons(), before);
  });

  it('accepts an empty JSON body on an operation that takes none', async () => {
    const person = (await t.call('POST', '/persons', { as: org, body: {} })).body.result;
    const response = await t.call('DELETE', `/persons/${person.id}`, { as: { ...org.headers, 'content-type': 'application/json' }, body: '' });
    assert.equal(response.status, 204);
  });

  /** Sends bytes on a raw socket and returns the status line and the parsed JSON body. */
  async function raw(bytes: string): Promise<{ status: number; body: any }> {
    const { port } = new URL(t.url);
    const socket = connect(Number(port), '127.0.0.1');
    socket.end(bytes);
    let text = '';
    for await (const chunk of socket) text += chunk;
    const [head, body] = text.split('\r\n\r\n');
    return { status: Number(head!.split(' ')[1]), body: JSON.parse(body!) };
  }

  const envelopes: [string, string, number, string][] = [
    ['invalid percent-encoding in the path', 'GET /persons/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 400, 'MALFORMED_REQUEST'],
    ['a path parameter past the router limit', `GET /persons/${'p'.repeat(300)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 400, 'INVALID_FIELD'],
    ['bytes that are not HTTP', 'HELLO THERE\r\n\r\n', 400, 'MALFORMED_REQUEST'],
    ['headers over the parser limit', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
  ];
  for (const [name, bytes, status, code] of envelopes) {
    it(`answers ${name} with ${status} in the envelope, not fastify's or Node's own body`, async () => {
      const response = await raw(bytes);
      assert.equal(response.status, status);
      assert.deepEqual(errorCodes(response.body), [code]);
      assert.equal(response.body.errors[0].httpcode, status);
    });
  }

  it('answers a path id of absurd length with 400 naming the parameter', async () => {
    const response = await t.call('GET', `/persons/${'p'.repeat(100)}`, { as: org });
    assert.equal(response.status, 400);
    assert.match(response.body.errors[0].message, /^path\.person_id: must NOT have more than 64 characters$/);
  });
});
