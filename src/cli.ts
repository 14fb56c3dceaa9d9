import { ConfigError } from './config/service-config.ts';
import { ConflictError, StorageUnavailableError } from './store/store.ts';
import { InvalidArgumentError } from './organizations/create-organization.ts';
import { GatewayConfigError } from './gateway/config/config-error.ts';
import { UsageError, type Command } from './commands/command.ts';
import { serviceCommand } from './commands/service.ts';
import { createOrgCommand } from './commands/create-org.ts';
import { demoCommand } from './commands/demo.ts';
import { rotateKeysCommand } from './commands/rotate-keys.ts';
import { gatewayCommand } from './commands/gateway.ts';

const commands: readonly Command[] = [serviceCommand, gatewayCommand, createOrgCommand, rotateKeysCommand, demoCommand];

const overview = `Usage: tessera <command> [options]

Commands:
${commands.map((c) => `  ${c.name.padEnd(18)} ${c.summary}`).join('\n')}

Run "tessera <command> --help" for a command's options.
Inside the repository: npm run --silent tessera -- <command>
`;

/** Finds the longest command name that prefixes the arguments (`admin create-org` takes two words). */
function findCommand(args: string[]): { command: Command; rest: string[] } | undefined {
  for (const command of [...commands].sort((a, b) => b.name.length - a.name.length)) {
    const words = command.name.split(' ');
    if (words.every((word, i) => args[i] === word)) return { command, rest: args.slice(words.length) };
  }
  return undefined;
}

async function main(args: string[]): Promise<number> {
  if (args.length === 0 || args[0] === '--help' || args[0] === '-h' || args[0] === 'help') {
    process.stdout.write(overview);
    return 0;
  }
  const found = findCommand(args);
  if (!found) {
    process.stderr.write(`tessera: unknown command "${args.join(' ')}"\n\n${overview}`);
    return 2;
  }
  try {
    await found.command.run(found.rest);
    return 0;
  } catch (error) {
    process.stderr.write(`tessera ${found.command.name}: ${explain(error)}\n`);
    return error instanceof UsageError || error instanceof ConfigError || error instanceof InvalidArgumentError || error instanceof GatewayConfigError ? 2 : 1;
  }
}

function explain(error: unknown): string {
  if (error instanceof ConflictError && error.subject === 'organization_name') return '--name: an organisation with this name already exists';
  if (error instanceof StorageUnavailableError) return `the database is unreachable (${(error.cause as Error)?.message ?? 'no detail'})`;
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return `${(error as Error).message}: the port is taken; set TESSERA_PORT to another`;
  if (error instanceof Error) return error.message;
  return String(error);
}

const code = await main(process.argv.slice(2));
if (code !== 0) process.exit(code);
