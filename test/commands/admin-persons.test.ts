import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AdminCli, CLI_OPERATOR, startAdminCli } from '../helpers/admin-cli.ts';
import { backends } from '../helpers/backends.ts';

const LAST_ADMIN = "person: is the organisation's last console administrator; make another person a console administrator first";

for (const backend of backends()) {
  describe(`tessera admin: persons, on ${backend.name}`, () => {
    let cli: AdminCli;
    before(async () => {
      cli = await startAdminCli(backend);
    });
    after(() => cli.close());

    const personsNow = async () => (await cli.t.call('GET', '/persons?limit=100', { as: cli.org })).body.result as { id: string }[];

    it('creates a person from options as POST /persons would, prints them, and audits it with operator cli', async () => {
      const created = await cli.admin([
        'create-person',
        '--org',
        'Acme',
        '--email',
        'Ada@Example.COM',
        '--phone',
        '+14155550100',
        '--role',
        'admin',
        '--console',
        '--json',
      ]);
      assert.equal(created.code, 0, created.stderr);
      assert.equal(created.stdout.split('\n').length, 2, 'one line of JSON');
      const ada = JSON.parse(created.stdout);
      assert.match(ada.id, /^per_/);
      assert.deepEqual(
        { handles: ada.handles, roles: ada.roles, console: ada.console },
        {
          handles: [
            { type: 'email_address', value: 'ada@example.com' },
            { type: 'phone_number', value: '+14155550100' },
          ],
          roles: ['admin'],
          console: true,
        },
      );
      assert.deepEqual((await cli.t.call('GET', `/persons/${ada.id}`, { as: cli.org })).body.result, ada, 'the API reads what the CLI wrote');

      // By its id as well as its name; a readable summary without --json.
      const grace = await cli.admin(['create-person', '--org', cli.org.orgId, '--email', 'grace@example.com', '--role', 'verifier']);
      assert.equal(grace.code, 0, grace.stderr);
      assert.match(grace.stdout, /^Created person per_\w+ in "Acme"\n {2}handles: {2}grace@example\.com\n {2}roles: {4}verifier\n {2}console: {2}no\n$/);

      const listed = await cli.admin(['list-persons', '--org', 'Acme', '--json']);
      assert.deepEqual(JSON.parse(listed.stdout), (await cli.t.call('GET', '/persons', { as: cli.org })).body.result, 'the API list, as one array');
      const table = await cli.admin(['list-persons', '--org', 'Acme']);
      assert.match(
        table.stdout,
        /^ID +HANDLES +ROLES +CONSOLE\nper_\w+ {2}ada@example\.com, \+14155550100 {2}admin +yes\nper_\w+ {2}grace@example\.com +verifier +no\n$/,
      );

      const events = await cli.events('person.created');
      assert.deepEqual(events.at(-2)!.data, { person_id: ada.id, roles: ['admin'], console: true, ...CLI_OPERATOR });
    });

    it('refuses bad input naming each option and rule (exit 2), and what the data refuses (exit 1), writing nothing', async () => {
      const before = (await personsNow()).length;
      const cases: [string[], number, RegExp[]][] = [
        [['--email', 'bad@', '--role', 'owner'], 2, [/--role: must be one of admin, verifier/, /--email "bad@": must be an email address/]],
        [['--phone', '004155550100'], 2, [/--phone "004155550100": must be an E\.164 phone number/]],
        [['--email', 'lin@example.com', '--email', 'LIN@example.com'], 2, [/--email "LIN@example\.com": repeats --email "lin@example\.com"/]],
        [['--role', 'admin', '--role', 'admin'], 2, [/--role: must not repeat an item/]],
        [['--email', 'ADA@example.com'], 1, [/--email\/--phone: email_address ada@example\.com is already used by another person of this organisation/]],
      ];
      for (const [options, code, messages] of cases) {
        const refused = await cli.admin(['create-person', '--org', 'Acme', ...options]);
        assert.equal(refused.code, code, `${options.join(' ')}: ${refused.stderr}`);
        assert.equal(refused.stdout, '');
        for (const message of messages) assert.match(refused.stderr, message, options.join(' '));
      }
      const unknown = await cli.admin(['create-person', '--org', 'Nope', '--email', 'x@example.com']);
      assert.equal(unknown.code, 1);
      assert.equal(unknown.stderr, 'tessera admin create-person: --org: no organisation has the id or name "Nope"\n');
      const missing = await cli.admin(['delete-person', '--org', 'Acme']);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /--person: is required\nRun "tessera admin delete-person --help" for usage\./);
      const nobody = await cli.admin(['delete-person', '--org', 'Acme', '--person', 'nobody@example.com']);
      assert.equal(nobody.code, 1);
      assert.match(nobody.stderr, /--person: no person of this organisation has the id or handle "nobody@example\.com"/);
      assert.equal((await personsNow()).length, before, 'nothing written');
    });

    it("never deletes the organisation's last console administrator, as the API and the console; otherwise deletes by handle or id, audited", async () => {
      const own = await startAdminCli(backend, 'Solo');
      try {
        const person = async (...options: string[]) => JSON.parse((await own.admin(['create-person', '--org', 'Solo', '--json', ...options])).stdout);
        const first = await person('--email', 'first@solo.example', '--role', 'admin', '--console');
        const refused = await own.admin(['delete-person', '--org', 'Solo', '--person', 'first@solo.example']);
        assert.equal(refused.code, 1);
        assert.equal(refused.stderr, `tessera admin delete-person: ${LAST_ADMIN}\n`);
        assert.equal((await own.t.call('GET', `/persons/${first.id}`, { as: own.org })).status, 200, 'still there');

        const second = await person('--email', 'second@solo.example', '--role', 'admin', '--console');
        const deleted = await own.admin(['delete-person', '--org', 'Solo', '--person', first.id, '--json']);
        assert.equal(deleted.code, 0, deleted.stderr);
        assert.deepEqual(JSON.parse(deleted.stdout), { person_id: first.id, deleted: true });
        assert.equal((await own.t.call('GET', `/persons/${first.id}`, { as: own.org })).status, 404);
        const again = await own.admin(['delete-person', '--org', 'Solo', '--person', '+14155550199']);
        assert.equal(again.code, 1, 'a handle nobody holds');
        const last = await own.admin(['delete-person', '--org', 'Solo', '--person', second.id]);
        assert.equal(last.code, 1);
        assert.match(last.stderr, /last console administrator/, 'the second is now the last');
        assert.deepEqual(
          (await own.events('person.deleted')).map((e) => e.data),
          [{ person_id: first.id, ...CLI_OPERATOR }],
          'one event, for the one deletion made',
        );
      } finally {
        await own.close();
      }
    });

    it("ends a person's lock as DELETE /persons/{id}/authn-attempts does, with the service's secret, audited", async () => {
      const person = JSON.parse((await cli.admin(['create-person', '--org', 'Acme', '--email', 'locked@example.com', '--json'])).stdout);
      for (let i = 0; i < 2; i++) {
        const login = await cli.t.call('POST', '/authn/password', {
          as: { 'service-orgid': cli.org.orgId },
          body: { handle: { type: 'email_address', value: 'locked@example.com' }, password: 'not their password' },
        });
        assert.equal(login.status, 401);
      }
      const counters = async () => (await cli.t.call('GET', `/persons/${person.id}/authn-attempts`, { as: cli.org })).body.result as { failures: number }[];
      assert.deepEqual(
        (await counters()).map((c) => c.failures),
        [2],
      );

      const withoutSecret = await cli.admin(['reset-attempts', '--org', 'Acme', '--person', 'locked@example.com'], { TESSERA_SECRET: '' });
      assert.equal(withoutSecret.code, 2);
      assert.match(withoutSecret.stderr, /TESSERA_SECRET: is required/);
      const wrongSecret = await cli.admin(['reset-attempts', '--org', 'Acme', '--person', 'locked@example.com'], {
        TESSERA_SECRET: 'not-the-secret-the-service-sealed-with',
      });
      assert.equal(wrongSecret.code, 1);
      assert.match(wrongSecret.stderr, /cannot unseal signing key \w+: TESSERA_SECRET is not the secret it was sealed with/);
      assert.equal((await counters()).length, 1, 'a wrong secret clears nothing');

      const reset = await cli.admin(['reset-attempts', '--org', 'Acme', '--person', 'locked@example.com']);
      assert.equal(reset.code, 0, reset.stderr);
      assert.equal(reset.stdout, `Reset 1 failed-attempt counter of person ${person.id} (locked@example.com).\n`);
      assert.deepEqual(await counters(), []);
      assert.deepEqual((await cli.events('authn.attempts_reset')).at(-1)!.data, { person_id: person.id, counters: 1, ...CLI_OPERATOR });
    });
  });
}
