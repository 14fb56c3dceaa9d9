import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * A caller's id is kept only when it is a sane value: visible ASCII, at most 128 characters.
 * Anything else (control characters, spaces, non-ASCII, a kilobyte of text) would end up in
 * log lines and upstream headers, so it is replaced rather than cleaned.
 */
const SANE = /^[\x21-\x7e]{1,128}$/;

/** The request's id: the caller's `X-Request-Id` when sane, else a new UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SANE.test(given) ? given : randomUUID();
}
