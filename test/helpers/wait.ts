/**
 * Polls `condition` until it holds, every `intervalMs`, and throws naming `what` if it has not
 * held by `timeoutMs`: for a test waiting on something another party does (a timer, a
 * background renewal, a process) without asserting how long it took. The deadline is only a
 * bound on a hang, not a claim: keep it generous.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  { what = 'the condition', timeoutMs = 10_000, intervalMs = 10 }: { what?: string; timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}, in vain`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
