import { parseArgs, type ParseArgsConfig } from 'node:util';

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

export function parseOptions<T extends NonNullable<ParseArgsConfig['options']>>(command: string, args: string[], options: T) {
  try {
    return parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: false, strict: true }).values;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nRun "tessera ${command} --help" for usage.`);
  }
}

/** Stops the process cleanly on Ctrl+C or a supervisor's SIGTERM. */
export function closeOnSignals(close: () => Promise<void>): void {
  let closing = false;
  const stop = (signal: string) => {
    if (closing) return;
    closing = true;
    process.stderr.write(`\n${signal} received, shutting down\n`);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shutdown failed: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
