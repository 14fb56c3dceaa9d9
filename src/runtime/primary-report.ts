import { pino } from 'pino';
import type { WorkerReport } from './run-workers.ts';

/** The primary's lines, as JSON log lines like the workers' own, named after the command. */
export function primaryReport(name: string, level: string): WorkerReport {
  const log = pino({ level, name });
  return { info: (message) => log.info(message), error: (message) => log.error(message) };
}
