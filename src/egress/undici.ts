import type * as Undici from 'undici';

let loading: Promise<typeof Undici> | undefined;

/**
 * undici, loaded on the first outbound request rather than at start-up: the service calls out
 * only for tenant-configured key sets and SCIM pulls, which most deployments never use, and
 * undici's modules hold about 5 MiB of heap once loaded (issue 30's service memory goal).
 */
export function undici(): Promise<typeof Undici> {
  // A failed load (a file read error) is not remembered: the next call tries again.
  loading ??= import('undici').catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
