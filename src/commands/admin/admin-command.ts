import { cliOperator, type Operator } from '../../audit/admin-events.ts';
import { DEVELOPMENT_SECRET, loadServiceConfig, type ServiceConfig } from '../../config/service-config.ts';
import { KeyRing } from '../../oauth/keys/key-ring.ts';
import { openStore } from '../../store/open-store.ts';
import type { Organization } from '../../store/organizations/store.ts';
import type { Store } from '../../store/store.ts';
import { type Command, CommandRefusal, DATABASE_ENVIRONMENT, parseOptions, UsageError } from '../command.ts';
import { warnOfUnknownVariables } from '../variable-warnings.ts';
import { type FieldNames, inOptionTerms } from './option-terms.ts';

// What every `tessera admin <verb-noun>` of design §9 shares: --org, --json and --help, the
// database and secret of "tessera service", the operator `cli` in the audit events, and messages
// that name options. A command declares its options once; its parser and its help come from that.

/** An option: one with a value (`value` names it in the help), repeatable or not, or a flag. */
export interface OptionSpec {
  value?: string;
  multiple?: boolean;
  required?: boolean;
  /** For --help; a second line after "\n" is indented under the first. */
  help: string;
}

type ValueOf<S extends OptionSpec> = S extends { value: string }
  ? S extends { multiple: true }
    ? string[]
    : S extends { required: true }
      ? string
      : string | undefined
  : boolean;
export type OptionValues<O extends Record<string, OptionSpec>> = { [K in keyof O]: ValueOf<O[K]> };

/** What a command works on: the organisation --org names, in the service's database. */
export interface AdminContext {
  store: Store;
  org: Organization;
  config: ServiceConfig;
  operator: Operator;
}

/** What a command prints: `text` for a person, `json` (one line) with --json. */
export interface AdminOutput {
  text: string;
  json: unknown;
}

export interface AdminCommandSpec<O extends Record<string, OptionSpec>> {
  /** As typed after `tessera`: `admin create-person`. */
  name: string;
  /** What the command does, for --help, as lines of at most 88 characters. */
  description: string;
  options: O;
  /** What --json prints, for --help. */
  json: string;
  /**
   * The command uses TESSERA_SECRET (sealing, keyed hashes): it is then required as by the
   * service, and proved by opening the service's signing key, since a mistyped secret would
   * write what the service cannot read. Without, it needs no secret; TESSERA_DEV keeps its meaning.
   */
  secret?: boolean;
  /** More of the help's Environment section. */
  environment?: string;
  /** The API's field names as this command's options name them, for messages. */
  fields?: FieldNames;
  run(context: AdminContext, values: OptionValues<O>): Promise<AdminOutput>;
}

const ORG = { value: 'ORG', required: true, help: 'the organisation: its id (org_…) or its name' } as const;
const HELP_COLUMN = 30;

function optionLine(label: string, help: string): string {
  const [first, ...more] = help.split('\n');
  const head = label.length > HELP_COLUMN - 3 ? `  ${label}\n${' '.repeat(HELP_COLUMN)}${first}` : `  ${label.padEnd(HELP_COLUMN - 2)}${first}`;
  return [head, ...more.map((line) => `${' '.repeat(HELP_COLUMN)}${line}`)].join('\n');
}

function usage(name: string, options: Record<string, OptionSpec>): string {
  const words = Object.entries(options).map(([option, spec]) => {
    const word = `--${option}${spec.value ? ` ${spec.value}` : ''}`;
    return `${spec.required ? word : `[${word}]`}${spec.multiple ? '...' : ''}`;
  });
  const lines = [`Usage: tessera ${name}`];
  for (const word of [...words, '[--json]']) {
    if (lines.at(-1)!.length + word.length + 1 > 92) lines.push(`       ${' '.repeat(name.length + 8)}${word}`);
    else lines[lines.length - 1] += ` ${word}`;
  }
  return lines.join('\n');
}

function helpOf(spec: Omit<AdminCommandSpec<Record<string, OptionSpec>>, 'run'>): string {
  const options: Record<string, OptionSpec> = { org: ORG, ...spec.options };
  const secret = spec.secret
    ? `  TESSERA_SECRET              the service's secret (required unless TESSERA_DEV=1), checked by
                              opening the service's signing key
  TESSERA_DEV=1               development mode: the fixed development secret`
    : '  TESSERA_SECRET              not needed: the command seals nothing';
  return `${usage(spec.name, options)}

${spec.description}

Options:
${Object.entries(options)
  .map(([option, o]) => optionLine(`--${option}${o.value ? ` ${o.value}` : ''}`, `${o.help}${o.multiple ? '; repeat for more' : ''}`))
  .join('\n')}
${optionLine('--json', spec.json)}
${optionLine('-h, --help', 'this text')}

Environment:
${DATABASE_ENVIRONMENT}
${secret}${spec.environment ? `\n${spec.environment}` : ''}
`;
}

/** The organisation --org names: by id, else by name (names are unique). */
async function organizationNamed(store: Store, given: string): Promise<Organization> {
  const org = (await store.getOrganization(given)) ?? (await store.getOrganizationByName(given));
  if (!org) throw new CommandRefusal(`--org: no organisation has the id or name ${JSON.stringify(given)}`);
  return org;
}

/** A command of design §9 from its declaration. */
export function adminCommand<const O extends Record<string, OptionSpec>>(spec: AdminCommandSpec<O>): Command {
  const help = helpOf(spec);
  const all: Record<string, OptionSpec> = { org: ORG, ...spec.options };
  const parsing = Object.fromEntries(
    Object.entries({ ...all, json: { help: '' } } as Record<string, OptionSpec>).map(([option, o]) => [
      option,
      o.value ? { type: 'string' as const, multiple: o.multiple === true } : { type: 'boolean' as const },
    ]),
  );
  return {
    name: spec.name,
    help,
    async run(args) {
      const parsed = parseOptions(spec.name, args, parsing) as Record<string, string | string[] | boolean | undefined>;
      if (parsed.help) return void process.stdout.write(help);
      const values: Record<string, unknown> = {};
      for (const [option, o] of Object.entries(all)) {
        const given = parsed[option];
        if (o.required && given === undefined) throw new UsageError(`--${option}: is required\nRun "tessera ${spec.name} --help" for usage.`);
        values[option] = given ?? (o.multiple ? [] : o.value ? undefined : false);
      }
      warnOfUnknownVariables(spec.name);
      const env = process.env;
      // A command that seals nothing needs no secret: the development one stands in, unused, rather
      // than TESSERA_DEV=1, which would let create-client register a loopback http jwks_uri in production.
      const { config } = loadServiceConfig(spec.secret ? env : { ...env, TESSERA_SECRET: env.TESSERA_SECRET || DEVELOPMENT_SECRET });
      const { store } = await openStore(config.databaseUrl, { poolSize: config.databasePoolSize });
      try {
        if (spec.secret) await new KeyRing(store, config.secret).init();
        const org = await organizationNamed(store, values.org as string);
        const output = await spec
          .run({ store, org, config, operator: cliOperator() }, values as OptionValues<O>)
          .catch((error: unknown) => Promise.reject(inOptionTerms(error, spec.fields ?? {})));
        process.stdout.write(parsed.json ? `${JSON.stringify(output.json)}\n` : output.text);
      } finally {
        await store.close();
      }
    },
  };
}
