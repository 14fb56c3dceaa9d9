import { resetAttemptsOfPerson } from '../../authn/attempt-reset.ts';
import { credentialTypeContext } from '../../credentials/context.ts';
import { createPerson, deletePerson, newPerson, presentPerson } from '../../persons/operations.ts';
import { NewPerson } from '../../persons/schemas.ts';
import type { Store } from '../../store/store.ts';
import { type Handle, type HandleType, handleTypes, type Person } from '../../store/types.ts';
import { CommandRefusal } from '../command.ts';
import { adminCommand } from './admin-command.ts';
import { checkBody, type FieldNames, withEveryProblem } from './option-terms.ts';
import { allPages, listed, summary, table } from './output.ts';

/** The option of each handle type: a new type of handle does not compile until it has one. */
const handleOptions: Record<HandleType, 'email' | 'phone'> = { email_address: 'email', phone_number: 'phone' };

export const PERSON_OPTION = {
  value: 'PERSON',
  required: true,
  help: 'the person: their id (per_…), or a handle of theirs\n(an email address, or a phone number as +14155550100)',
} as const;

/** The person --person names: by id, else by the handle it looks like. */
export async function personNamed(store: Store, orgId: string, given: string): Promise<Person> {
  const byId = await store.getPerson(orgId, given);
  if (byId) return byId;
  const type: HandleType | undefined = given.startsWith('+') ? 'phone_number' : given.includes('@') ? 'email_address' : undefined;
  const byHandle = type && (await store.findPersonByHandle(orgId, { type, value: given }));
  if (!byHandle) throw new CommandRefusal(`--person: no person of this organisation has the id or handle ${JSON.stringify(given)}`);
  return byHandle;
}

const PERSON_FIELDS: FieldNames = { 'body.handles': '--email/--phone', 'body.roles': '--role', 'body.console': '--console' };

export const handlesOf = (person: Person) => listed(person.handles.map((h) => h.value));
const consoleOf = (person: Person) => (person.console ? 'yes' : 'no');

export const createPersonCommand = adminCommand({
  name: 'admin create-person',
  description: `Creates a person in the organisation, with the handles they are found and reached by,
their roles, and whether they are a member of the organisation's console. The same rules
as POST /persons; audited as person.created, operator cli.`,
  options: {
    email: { value: 'ADDRESS', multiple: true, help: 'an email address of theirs (a handle)' },
    phone: { value: 'NUMBER', multiple: true, help: 'a phone number of theirs, E.164 (+14155550100)' },
    role: { value: 'ROLE', multiple: true, help: 'admin or verifier' },
    console: { help: "a member of the organisation's console (with --role admin:\nan administrator there)" },
  },
  json: 'print the person as the API shows them, on one line',
  fields: PERSON_FIELDS,
  async run({ store, org, operator }, options) {
    const given: [Handle, string][] = handleTypes.flatMap((type) =>
      options[handleOptions[type]].map((value): [Handle, string] => [{ type, value }, handleOptions[type]]),
    );
    // The API names handles by position; here each is the option that gave it.
    const names: FieldNames = {
      ...PERSON_FIELDS,
      ...Object.fromEntries(given.map(([handle, option], i) => [`body.handles[${i}]`, `--${option} ${JSON.stringify(handle.value)}`])),
    };
    const body = { handles: given.map(([handle]) => handle), ...(options.role.length > 0 ? { roles: options.role } : {}), console: options.console };
    const person = withEveryProblem(names, [() => checkBody(NewPerson, body, names)], () =>
      newPerson(org.id, body as Parameters<typeof newPerson>[1], 'body.handles'),
    );
    await createPerson(store, person, operator, person.createdAt);
    const fields: [string, string][] = [
      ['handles', handlesOf(person)],
      ['roles', listed(person.roles)],
      ['console', person.console && person.roles.includes('admin') ? 'yes (a console administrator)' : consoleOf(person)],
    ];
    return { text: summary(`Created person ${person.id} in "${org.name}"`, fields), json: presentPerson(person) };
  },
});

export const listPersonsCommand = adminCommand({
  name: 'admin list-persons',
  description: `Lists the persons of the organisation, oldest first: their handles, roles and console
membership (with --json also when each was created).`,
  options: {},
  json: 'print the persons as the API shows them, as one JSON array',
  async run({ store, org }) {
    const persons = await allPages(
      (page) => store.listPersons(org.id, page),
      (p) => p.id,
    );
    if (persons.length === 0) return { text: `No persons in "${org.name}".\n`, json: [] };
    const rows = persons.map((p) => [p.id, handlesOf(p), listed(p.roles), consoleOf(p)]);
    return { text: table(['ID', 'HANDLES', 'ROLES', 'CONSOLE'], rows), json: persons.map(presentPerson) };
  },
});

export const deletePersonCommand = adminCommand({
  name: 'admin delete-person',
  description: `Deletes a person and everything of theirs: handles, credentials, console sessions; their
opaque tokens are revoked. Never the organisation's last console administrator (admin role
and console membership), as in the API and the console. Audited as person.deleted, operator cli.`,
  options: { person: PERSON_OPTION },
  json: 'print {"person_id": …, "deleted": true}',
  fields: { 'path.person_id': '--person' },
  async run({ store, org, operator }, options) {
    const person = await personNamed(store, org.id, options.person);
    await deletePerson(store, org.id, person.id, Date.now(), operator);
    return { text: `Deleted person ${person.id} (${handlesOf(person)}) and everything of theirs.\n`, json: { person_id: person.id, deleted: true } };
  },
});

export const resetAttemptsCommand = adminCommand({
  name: 'admin reset-attempts',
  description: `Ends a person's lock: every failed-attempt counter of their handles and credential types
starts again, as DELETE /persons/{person_id}/authn-attempts does (after the person has
proved who they are). Audited as authn.attempts_reset, operator cli. The counters are named
by a hash keyed by TESSERA_SECRET, so the command needs the service's secret.`,
  options: { person: PERSON_OPTION },
  json: 'print {"person_id": …, "counters": N}, N the counters cleared',
  secret: true,
  fields: { 'path.person_id': '--person' },
  async run({ store, org, config, operator }, options) {
    const person = await personNamed(store, org.id, options.person);
    const { hashCode } = credentialTypeContext(config.secret);
    const counters = await resetAttemptsOfPerson(store, org.id, person.id, hashCode, operator, Date.now());
    const text = `Reset ${counters} failed-attempt counter${counters === 1 ? '' : 's'} of person ${person.id} (${handlesOf(person)}).\n`;
    return { text, json: { person_id: person.id, counters } };
  },
});
