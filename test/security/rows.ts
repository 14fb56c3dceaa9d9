import type { SecurityStack } from './harness.ts';

/** One case of the security review: the request, in words, what must happen, and the check. */
export interface SecurityRow {
  request: string;
  expect: string;
  check(stack: SecurityStack): Promise<void>;
}
