import { type ParseArgsConfig, parseArgs } from 'node:util';
import { likelyMeant } from '../validation/nearest-name.ts';

export interface Command {
  /** As typed after `tessera`, e.g. `admin create-org`. */
  name: string;
  /** Full --help text. */
  help: string;
  run(args: string[]): Promise<void>;
}

/** Wrong usage of a command: printed with a pointer to --help, exit status 2. */
export class UsageError extends Error {
  readonly code = 'USAGE';
}

/** What a command was asked is refused by the data (an unknown id, a conflict): the message says why, exit status 1. */
export class CommandRefusal extends Error {
  readonly code = 'REFUSED';
}

export function parseOptions<T extends NonNullable<ParseArgsConfig['options']>>(command: string, args: string[], options: T) {
  const all = { ...options, help: { type: 'boolean', short: 'h' } } as const;
  try {
    return parseArgs({ args, options: all, allowPositionals: false, strict: true }).values;
  } catch (error) {
    throw new UsageError(`${describeParseError(error as Error & { code?: string }, Object.keys(all))}\nRun "tessera ${command} --help" for usage.`);
  }
}

/** parseArgs's refusal, with the option meant when an unknown one is a likely typo of it ("did you mean --name?"). */
function describeParseError(error: Error & { code?: string }, names: readonly string[]): string {
  const unknown = error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '(--?[^'=]+)/.exec(error.message)?.[1] : undefined;
  if (unknown === undefined) return error.message;
  const meant = likelyMeant(
    unknown,
    names.map((name) => `--${name}`),
  );
  return `${error.message}${meant ? `; did you mean ${meant}?` : ''}`;
}

/**
 * Stops the process cleanly on Ctrl+C or a supervisor's SIGTERM. A signal that comes again
 * while stopping is ignored, not left to Node's default (an immediate exit): a worker gets
 * SIGTERM twice when the whole process group is signalled (systemd's default, a terminal's
 * Ctrl+C), once from the supervisor and once passed on by its primary, and must still drain.
 */
export function closeOnSignals(close: () => Promise<void>, tracing?: { shutdown(): Promise<void> }): void {
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    process.stderr.write(`\n${signal} received, shutting down\n`);
    // The spans still queued go out after the rest has stopped, whether it stopped cleanly or not.
    close()
      .finally(() => tracing?.shutdown())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(`shutdown failed: ${(error as Error).message}\n`);
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** The database variables every command that opens the database reads (docs/configuration.md). */
export const DATABASE_ENVIRONMENT = `  DATABASE_URL                postgres://… (wins over TESSERA_DATABASE; for several replicas)
  TESSERA_DATABASE            sqlite:PATH, sqlite::memory: or postgres://…
                              (default sqlite:$TESSERA_DATA_DIR/tessera.db)
  TESSERA_DATA_DIR            where the default database lives (default
                              $XDG_DATA_HOME/tessera, else ~/.local/share/tessera)
  TESSERA_DATABASE_POOL_SIZE  most PostgreSQL connections (default 10)`;
