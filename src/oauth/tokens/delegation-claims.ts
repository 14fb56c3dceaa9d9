import type { ActClaim } from '../../store/types.ts';

/** Deeper chains are refused: each hop stores the whole chain, and no real delegation needs more. */
export const MAX_ACT_DEPTH = 10;

/** Why a claim was refused; the message names the claim and never quotes its value. */
export class MalformedClaim extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedClaim';
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasOnly(value: Record<string, unknown>, allowed: readonly string[]): boolean {
  return Object.keys(value).every((key) => allowed.includes(key));
}

/**
 * RFC 8693 §4.1 `act`: an object with a string `sub`, optionally nesting the previous actor
 * in `act`, at most MAX_ACT_DEPTH deep. This server writes nothing else into it, and an
 * exchange copies the chain into the new token, so anything else is refused rather than
 * carried along. Returns a fresh copy holding only what was checked.
 */
export function readActClaim(value: unknown): ActClaim | undefined {
  // An absent act walks no level, and reads as none.
  const levels: Array<{ sub: string }> = [];
  let current: unknown = value;
  // A loop, not recursion: the depth is bounded before anything deep is walked.
  while (current !== undefined) {
    if (levels.length === MAX_ACT_DEPTH) throw new MalformedClaim(`"act" nests more than ${MAX_ACT_DEPTH} actors`);
    if (!isPlainObject(current)) throw new MalformedClaim('"act" must be an object at every level');
    if (typeof current.sub !== 'string' || current.sub === '')
      throw new MalformedClaim('"act" must name its actor with a non-empty string "sub" at every level');
    if (!hasOnly(current, ['sub', 'act'])) throw new MalformedClaim('"act" may hold only "sub" and a nested "act"');
    levels.push({ sub: current.sub });
    current = current.act;
  }
  return levels.reduceRight<ActClaim | undefined>((inner, { sub }) => (inner ? { sub, act: inner } : { sub }), undefined);
}

/** RFC 8693 §4.4 `may_act`: exactly an object with a string `sub`, as mint-token writes it. */
export function readMayActClaim(value: unknown): { sub: string } | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value) || typeof value.sub !== 'string' || value.sub === '' || !hasOnly(value, ['sub'])) {
    throw new MalformedClaim('"may_act" must be an object holding only a non-empty string "sub"');
  }
  return { sub: value.sub };
}

/** How many actors a chain names. */
export function actDepth(act: ActClaim | undefined): number {
  let depth = 0;
  for (let level = act; level; level = level.act) depth++;
  return depth;
}
