// "Did you mean": one measure for every name a person can mistype (a command, an option, a
// variable of the service or of the gateway), so that both programs suggest alike.

/** Edit distance (insertions, deletions, substitutions). */
export function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * How far a mistyped name may be from the one meant: a third of its length, and two edits
 * for the shortest (a swap of two letters is two). Further than that the suggestion would be
 * a guess, and a wrong guess misleads more than none.
 */
export function typoDistance(name: string): number {
  return Math.max(2, Math.floor(name.length / 3));
}

/** The candidate at the least edit distance from `name` (the first of equals), if one is within `within` edits. */
export function nearestName(name: string, candidates: Iterable<string>, within = Number.POSITIVE_INFINITY): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = levenshtein(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= within ? best : undefined;
}

/** The name meant by a mistyped one, when one is close enough to be the likely meaning. */
export function likelyMeant(name: string, candidates: Iterable<string>): string | undefined {
  return nearestName(name, candidates, typoDistance(name));
}
