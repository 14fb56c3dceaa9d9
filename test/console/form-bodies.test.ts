import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MAX_FORM_FIELDS, parseForm } from '../../src/console/form-body.ts';
import { backends } from '../helpers/backends.ts';
import { ConsoleAgent, type ConsolePerson, consolePerson, signInWithPassword } from '../helpers/console.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('parseForm', () => {
  it('keeps list fields as lists and every other field as its text', () => {
    assert.deepEqual(
      { ...parseForm('roles=admin&email=a%40b.example&roles=verifier&grant_types=client_credentials') },
      {
        roles: ['admin', 'verifier'],
        email: 'a@b.example',
        grant_types: ['client_credentials'],
      },
    );
  });

  it('refuses a field that is not a list when it is sent twice, naming it', () => {
    assert.throws(() => parseForm('console=yes&console=no'), { code: 'MALFORMED_REQUEST', message: /^form: field "console" is sent more than once/ });
  });

  it('regression: a percent-encoding that is not UTF-8 is refused, not stored as U+FFFD', () => {
    for (const body of ['email=ffx%ff%fe%40ex.com', 'email=50%', 'email=a%zz', 'em%C3ail=x', 'email=a\uFFFD']) {
      assert.throws(
        () => parseForm(body),
        { code: 'MALFORMED_REQUEST', message: /^form: (has a percent-encoding that is not UTF-8|is not valid UTF-8)/ },
        body,
      );
    }
    assert.deepEqual({ ...parseForm('email=zo%C3%AB%40ex.com&name=a+b%2Bc') }, { email: 'zoë@ex.com', name: 'a b+c' });
  });

  it(`refuses a form of more than ${MAX_FORM_FIELDS} fields, naming the bound`, () => {
    assert.throws(() => parseForm(Array.from({ length: MAX_FORM_FIELDS + 1 }, (_, i) => `f${i}=x`).join('&')), {
      message: `form: has more than ${MAX_FORM_FIELDS} fields`,
    });
    assert.equal(Object.keys(parseForm(Array.from({ length: MAX_FORM_FIELDS }, (_, i) => `f${i}=x`).join('&'))).length, MAX_FORM_FIELDS);
  });
});

for (const backend of backends()) {
  describe(`Console request bodies on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let admin: ConsolePerson;
    let agent: ConsoleAgent;
    let csrf: string;

    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      admin = await consolePerson(t, org, { roles: ['admin'] });
      agent = new ConsoleAgent(t.url);
      csrf = (await signInWithPassword(agent, org.orgId, admin)).csrf;
    });
    after(() => t.close());

    it('regression: 32,767 repeated fields at sign-in are a 400 page naming the rule, and /healthz answers meanwhile (the parse was quadratic)', async () => {
      const repeated = Array.from({ length: 32_767 }, () => 'a').join('&');
      const distinct = Array.from({ length: 10_000 }, (_, i) => `f${i}`).join('&');
      const [first, second, health] = await Promise.all([
        new ConsoleAgent(t.url).raw('POST', '/console/sign-in', FORM, repeated),
        new ConsoleAgent(t.url).raw('POST', '/console/sign-in', FORM, distinct),
        fetch(`${t.url}/healthz`),
      ]);
      assert.equal(first.status, 400);
      assert.match(first.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(first.html, /form: field &quot;a&quot; is sent more than once \(only roles and grant_types may repeat\)/);
      assert.equal(second.status, 400);
      assert.match(second.html, new RegExp(`form: has more than ${MAX_FORM_FIELDS} fields`));
      assert.equal(health.status, 200);
    });

    it('regression: a JSON body at a form route is 415, and the person keeps console membership ("console": true read as an unticked box)', async () => {
      const person = await consolePerson(t, org, { roles: ['verifier'] });
      const answer = await agent.raw(
        'POST',
        `/console/admin/persons/${person.id}/access`,
        { 'content-type': 'application/json', 'x-csrf-token': csrf },
        JSON.stringify({ roles: ['verifier'], console: true }),
      );
      assert.equal(answer.status, 415);
      assert.match(answer.html, /header Content-Type: must be application\/x-www-form-urlencoded/);
      assert.equal((await t.call('GET', `/persons/${person.id}`, { as: org })).body.result.console, true);
    });

    it('answers a form posted with a wrong Content-Type as a console page, not the API JSON', async () => {
      const answer = await agent.raw('POST', '/console/admin/persons', { 'content-type': 'text/plain' }, `email=x%40example.com&_csrf=${csrf}`);
      assert.equal(answer.status, 415);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
      // Not the API's "must be application/json": the route takes a form.
      assert.match(answer.html, /header Content-Type: must be application\/x-www-form-urlencoded for POST \/console\/admin\/persons/);
    });

    it('answers a repeated single-value field as a console page naming it, and changes nothing', async () => {
      const person = await consolePerson(t, org, { roles: ['verifier'] });
      const answer = await agent.raw('POST', `/console/admin/persons/${person.id}/access`, FORM, `roles=verifier&console=yes&console=no&_csrf=${csrf}`);
      assert.equal(answer.status, 400);
      assert.match(answer.html, /field &quot;console&quot; is sent more than once/);
      assert.equal((await t.call('GET', `/persons/${person.id}`, { as: org })).body.result.console, true);
    });

    it('regression: a person created from a form with %FF in the email is a 400 page, and nobody is created (U+FFFD was stored)', async () => {
      const before = (await t.call('GET', '/persons', { as: org })).body.meta.cursor_pagination.total_count;
      const answer = await agent.raw('POST', '/console/admin/persons', FORM, `email=ffx%ff%fe%40ex.com&_csrf=${csrf}`);
      assert.equal(answer.status, 400);
      assert.match(answer.html, /form: has a percent-encoding that is not UTF-8/);
      assert.equal((await t.call('GET', '/persons', { as: org })).body.meta.cursor_pagination.total_count, before);
    });

    it('answers a POST to an unknown console address with the console not-found page, not the API JSON', async () => {
      const answer = await agent.raw('POST', '/console/admin/nothing-here', FORM, `_csrf=${csrf}`);
      assert.equal(answer.status, 404);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(answer.html, /There is no console page at this address/);
    });

    it('names an icon on every page, so the browser never asks for /favicon.ico', async () => {
      const page = await agent.get('/console/admin/persons');
      const icon = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml">/.exec(page.html)?.[1];
      assert.ok(icon, 'the page names an icon');
      const served = await fetch(`${t.url}${icon}`);
      assert.equal(served.status, 200);
      assert.equal(served.headers.get('content-type'), 'image/svg+xml');
      assert.match(await served.text(), /^<svg /);
    });
  });
}
