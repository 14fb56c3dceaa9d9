import { createServer } from 'node:net';

/** One port a command listens on, and the setting that chose it (for the message). */
export interface PortSetting {
  /** As the operator sets it: `TESSERA_PORT`, `GATEWAY_ADMIN_PORT`, `admin_port` in a file. */
  setting: string;
  host: string;
  port: number;
}

/**
 * Ports another process holds, or that two of the command's own settings both name; the
 * message names every setting to change, so a reader fixes them all in one go.
 */
export class PortInUseError extends Error {
  readonly code = 'PORT_IN_USE';
  /** The settings to change, in the command's order. */
  readonly settings: readonly string[];
  constructor(taken: readonly PortSetting[], options?: { cause?: unknown; shared?: readonly (readonly PortSetting[])[] }) {
    const shared = options?.shared ?? [];
    const lines = [
      ...taken.map((s) => `${s.setting}: port ${s.port} on ${s.host} is taken by another process`),
      ...shared.map(
        (group) =>
          `${group.map((s) => s.setting).join(' and ')}: ${group.length === 2 ? 'both' : 'all'} name port ${group[0]!.port} on ${group[0]!.host}, which only one can have`,
      ),
    ];
    const settings = [...taken.map((s) => s.setting), ...shared.map((group) => group.at(-1)!.setting)];
    // One port keeps the one-line form scripts and docs quote; several are listed, one a line.
    const message =
      lines.length === 1
        ? `${lines[0]}; set ${settings[0]} to another port`
        : `${lines.length} ports cannot be used; set ${settings.join(', ')} to other ports:\n${lines.map((line) => `  ${line}`).join('\n')}`;
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PortInUseError';
    this.settings = settings;
  }
}

/**
 * Turns Node's `listen EADDRINUSE` into a PortInUseError naming whichever setting holds
 * that port; any other error is returned as it is.
 */
export function explainListenError(error: unknown, settings: readonly PortSetting[]): unknown {
  const failed = error as NodeJS.ErrnoException & { port?: number };
  if (failed?.code !== 'EADDRINUSE') return error;
  const setting = settings.find((s) => s.port === failed.port && s.port !== 0);
  return setting ? new PortInUseError([setting], { cause: error }) : error;
}

/** Whether `setting`'s port can be bound now: bound for a moment, then let go. */
function bindable(setting: PortSetting): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(false) : reject(error)));
    probe.listen({ port: setting.port, host: setting.host, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

/**
 * Throws one PortInUseError naming every setting whose port cannot be bound now, and every
 * group of settings naming the same port (each would bind alone; the second listener would
 * fail, and be blamed on another process). Port 0 always binds. Used before a command changes
 * anything, so that a busy port leaves the database as it was.
 */
export async function assertPortsFree(settings: readonly PortSetting[]): Promise<void> {
  const fixed = settings.filter((s) => s.port !== 0);
  const byPort = Map.groupBy(fixed, (s) => `${s.host} ${s.port}`);
  const shared = [...byPort.values()].filter((group) => group.length > 1);
  const taken: PortSetting[] = [];
  for (const group of byPort.values()) if (!(await bindable(group[0]!))) taken.push(group[0]!);
  if (taken.length > 0 || shared.length > 0) throw new PortInUseError(taken, { shared });
}
