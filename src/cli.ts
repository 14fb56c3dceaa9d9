import { readFileSync } from 'node:fs';
import type { Command } from './commands/command.ts';
import { levenshtein, typoDistance } from './validation/nearest-name.ts';

interface CommandEntry {
  /** As typed after `tessera`, e.g. `admin create-org`. */
  name: string;
  summary: string;
  /** Imported only when chosen: a gateway process should not carry the service's modules. */
  load(): Promise<Command>;
}

// The admin commands' modules, one per noun.
const persons = () => import('./commands/admin/persons.ts');
const invitations = () => import('./commands/admin/invitations.ts');
const clients = () => import('./commands/admin/clients.ts');
const clientAuth = () => import('./commands/admin/client-authentication.ts');
const apiKeys = () => import('./commands/admin/api-keys.ts');
const connections = () => import('./commands/admin/connections.ts');

/** Entries of `tessera admin <verb-noun>`, one line each: [verb-noun, summary, load]. */
function adminCommands(entries: [string, string, CommandEntry['load']][]): CommandEntry[] {
  return entries.map(([name, summary, load]) => ({ name: `admin ${name}`, summary, load }));
}

const commands: readonly CommandEntry[] = [
  { name: 'service', summary: 'run the identity service', load: async () => (await import('./commands/service.ts')).serviceCommand },
  {
    name: 'gateway',
    summary: 'run the gateway (reverse proxy with token-exchange plugins)',
    load: async () => (await import('./commands/gateway.ts')).gatewayCommand,
  },
  {
    name: 'admin create-org',
    summary: 'create an organisation and print its id and first admin key',
    load: async () => (await import('./commands/create-org.ts')).createOrgCommand,
  },
  {
    name: 'admin rotate-keys',
    summary: 'make a new token signing key active and retire the current one',
    load: async () => (await import('./commands/rotate-keys.ts')).rotateKeysCommand,
  },
  // Design §9: what an admin key manages, on the configured database, audited with operator cli.
  ...adminCommands([
    ['create-person', 'create a person with handles, roles and console membership', async () => (await persons()).createPersonCommand],
    ['list-persons', "list the organisation's persons", async () => (await persons()).listPersonsCommand],
    ['delete-person', 'delete a person and everything of theirs', async () => (await persons()).deletePersonCommand],
    [
      'invite-person',
      'make a one-time link where a person sets their password (a reset if they hold credentials)',
      async () => (await invitations()).invitePersonCommand,
    ],
    ['reset-attempts', "end a person's lock: reset their failed-attempt counters", async () => (await persons()).resetAttemptsCommand],
    ['create-client', 'register an OAuth2 client and print its secret', async () => (await clients()).createClientCommand],
    ['list-clients', "list the organisation's OAuth2 clients", async () => (await clients()).listClientsCommand],
    ['rotate-client-secret', "replace a client's secret and print the new one", async () => (await clients()).rotateClientSecretCommand],
    ['set-client-auth', 'switch how a client authenticates: a secret, its keys or its SPIFFE ID', async () => (await clientAuth()).setClientAuthCommand],
    ['delete-client', 'delete an OAuth2 client and revoke its tokens', async () => (await clients()).deleteClientCommand],
    ['create-api-key', 'create an admin or integration API key and print it', async () => (await apiKeys()).createApiKeyCommand],
    ['revoke-api-key', 'revoke an API key (never the last admin key)', async () => (await apiKeys()).revokeApiKeyCommand],
    ['create-connection', 'connect an identity directory (SCIM push or pull)', async () => (await connections()).createConnectionCommand],
  ]),
  {
    name: 'dev passkey',
    summary: 'a software passkey: answer WebAuthn options from a shell',
    load: async () => (await import('./commands/dev-passkey.ts')).devPasskeyCommand,
  },
  {
    name: 'demo',
    summary: 'run the demo stack on the embedded database (what "npm start" runs)',
    load: async () => (await import('./commands/demo.ts')).demoCommand,
  },
  {
    name: 'demo token',
    summary: "print a fresh person JWT for the running demo's curl through the gateway",
    load: async () => (await import('./commands/demo-token.ts')).demoTokenCommand,
  },
];

const width = Math.max(...commands.map((c) => c.name.length));
const list = (entries: readonly CommandEntry[]) => entries.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n');

const overview = `Usage: tessera <command> [options]

Commands:
${list(commands)}

Options:
  -h, --help      this overview; after a command, that command's options and variables
  -v, --version   the version of Tessera

Run "tessera <command> --help" for a command's options and environment variables.
Inside the repository: npm run --silent tessera -- <command>
`;

/** The help of a group of subcommands, such as `tessera admin --help`. */
function groupHelp(group: string): string | undefined {
  const members = commands.filter((c) => c.name.startsWith(`${group} `));
  if (members.length === 0) return undefined;
  return `Usage: tessera ${group} <command> [options]\n\nCommands:\n${list(members)}\n\nRun "tessera ${group} <command> --help" for a command's options and environment variables.\n`;
}

function version(): string {
  return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** Finds the longest command name that prefixes the arguments (`admin create-org` takes two words). */
function findCommand(args: string[]): { entry: CommandEntry; rest: string[] } | undefined {
  for (const entry of [...commands].sort((a, b) => b.name.length - a.name.length)) {
    const words = entry.name.split(' ');
    if (words.every((word, i) => args[i] === word)) return { entry, rest: args.slice(words.length) };
  }
  return undefined;
}

/** The command a mistyped one likely meant: each name compared with as many words as it has. */
function meantCommand(args: string[]): string | undefined {
  let meant: string | undefined;
  let least = Number.POSITIVE_INFINITY;
  for (const { name } of commands) {
    const typed = args.slice(0, name.split(' ').length).join(' ');
    const distance = levenshtein(typed, name);
    if (distance <= typoDistance(typed) && distance < least) [meant, least] = [name, distance];
  }
  return meant;
}

/** "unknown command", and the command likely meant when one is close. */
function unknownCommand(args: string[]): string {
  const meant = meantCommand(args);
  return `unknown command "${args.join(' ')}"${meant ? `; did you mean ${meant}?` : ''}`;
}

async function main(args: string[]): Promise<number> {
  if (args.length === 0 || args[0] === '--help' || args[0] === '-h' || args[0] === 'help') {
    process.stdout.write(overview);
    return 0;
  }
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
    process.stdout.write(`tessera ${version()}\n`);
    return 0;
  }
  const found = findCommand(args);
  const group = found ? undefined : groupHelp(args[0]!);
  if (group !== undefined) {
    // `tessera admin --help` asks for the group; `tessera admin` alone is a usage mistake.
    const asked = args.length === 2 && ['--help', '-h'].includes(args[1]!);
    const complaint = args.length === 1 ? `"${args[0]}" needs a command` : unknownCommand(args);
    (asked ? process.stdout : process.stderr).write(asked ? group : `tessera: ${complaint}\n\n${group}`);
    return asked ? 0 : 2;
  }
  if (!found) {
    process.stderr.write(`tessera: ${unknownCommand(args)}\n\n${overview}`);
    return 2;
  }
  try {
    await (await found.entry.load()).run(found.rest);
    return 0;
  } catch (error) {
    const { describeFailure } = await import('./commands/failure.ts');
    const { message, exitCode } = describeFailure(error);
    process.stderr.write(`tessera ${found.entry.name}: ${message}\n`);
    return exitCode;
  }
}

const code = await main(process.argv.slice(2));
if (code !== 0) process.exit(code);
