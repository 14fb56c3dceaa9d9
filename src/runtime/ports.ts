import { createServer } from 'node:net';

/** One port a command listens on, and the setting that chose it (for the message). */
export interface PortSetting {
  /** As the operator sets it: `TESSERA_PORT`, `GATEWAY_ADMIN_PORT`, `admin_port` in a file. */
  setting: string;
  host: string;
  port: number;
}

/** A port another process holds; the message names the setting to change. */
export class PortInUseError extends Error {
  readonly code = 'PORT_IN_USE';
  readonly setting: string;
  readonly port: number;
  constructor(setting: PortSetting, options?: { cause?: unknown }) {
    super(`${setting.setting}: port ${setting.port} on ${setting.host} is taken by another process; set ${setting.setting} to another port`, options);
    this.name = 'PortInUseError';
    this.setting = setting.setting;
    this.port = setting.port;
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
  return setting ? new PortInUseError(setting, { cause: error }) : error;
}

/**
 * Throws a PortInUseError for the first setting whose port cannot be bound now, by binding
 * it for a moment. Port 0 always binds. Used before a command changes anything, so that a
 * busy port leaves the database as it was.
 */
export async function assertPortsFree(settings: readonly PortSetting[]): Promise<void> {
  for (const setting of settings) {
    if (setting.port === 0) continue;
    const probe = createServer();
    await new Promise<void>((resolve, reject) => {
      probe.once('error', (error) => reject(explainListenError(error, [setting])));
      probe.listen({ port: setting.port, host: setting.host, exclusive: true }, () => probe.close(() => resolve()));
    });
  }
}
