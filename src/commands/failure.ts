import { ConfigError } from '../config/service-config.ts';
import { GatewayConfigError } from '../gateway/settings/config-error.ts';
import { InvalidArgumentError } from '../organizations/create-organization.ts';
import { PortInUseError } from '../runtime/ports.ts';
import { ConflictError, StorageUnavailableError } from '../store/store.ts';
import { UsageError } from './command.ts';

/**
 * What a failed command prints and its exit status: 2 for mistakes of the caller (usage,
 * configuration, arguments), 1 for everything else. Loaded only when a command fails, so
 * that a running gateway does not carry the service's modules.
 */
export function describeFailure(error: unknown): { message: string; exitCode: 1 | 2 } {
  const callerMistake =
    error instanceof UsageError || error instanceof ConfigError || error instanceof InvalidArgumentError || error instanceof GatewayConfigError;
  return { message: explain(error), exitCode: callerMistake ? 2 : 1 };
}

function explain(error: unknown): string {
  if (error instanceof ConflictError && error.subject === 'organization_name') return '--name: an organisation with this name already exists';
  if (error instanceof StorageUnavailableError) return `the database is unreachable (${(error.cause as Error)?.message ?? 'no detail'})`;
  if (error instanceof PortInUseError) return error.message;
  // A listener no command named (each names its own ports): say so rather than guess a variable.
  if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') return `${(error as Error).message}: the port is taken by another process`;
  if (error instanceof Error) return error.message;
  return String(error);
}
