import { Writable } from 'node:stream';
import { pino } from 'pino';

/**
 * A real pino logger (the service's) whose JSON lines are kept, so a test reads exactly what
 * would reach the service log.
 */
export function capturedLog(): { log: pino.Logger; lines: () => string[]; text: () => string } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  // sync: the line is in `lines` when the logging call returns.
  const log = pino({ level: 'info' }, sink);
  return { log, lines: () => lines, text: () => lines.join('\n') };
}
