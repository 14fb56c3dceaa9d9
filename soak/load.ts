import { type LoadContext, operations } from './operations.ts';
import { verificationOperations } from './verification-operations.ts';

const all = Object.values({ ...operations, ...verificationOperations });
const totalWeight = all.reduce((sum, op) => sum + op.weight, 0);
/** Loops running operations at once; the rate bound, not this, sets the load. */
const LOOPS = 12;

function pickOperation() {
  let ticket = Math.random() * totalWeight;
  for (const op of all) {
    ticket -= op.weight;
    if (ticket < 0) return op;
  }
  return all[0]!;
}

/**
 * The mixed load until `until`: LOOPS loops, each starting an operation at most every
 * LOOPS / rate seconds, so the whole stays near `rate` operations a second whatever the
 * latency (a slow answer delays its loop, it does not pile up requests).
 */
export async function runLoad(context: LoadContext, { rate, until }: { rate: number; until: number }): Promise<void> {
  const spacingMs = (LOOPS / rate) * 1000;
  await Promise.all(
    Array.from({ length: LOOPS }, async (_, loop) => {
      await new Promise((resolve) => setTimeout(resolve, (loop * spacingMs) / LOOPS));
      while (Date.now() < until) {
        const began = Date.now();
        await pickOperation().run(context);
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, spacingMs - (Date.now() - began))));
      }
    }),
  );
}
