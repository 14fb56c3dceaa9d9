/** One of an issue's goals, judged from figures measured in the same run. */
export interface Goal {
  goal: string;
  /** The measured figure, already formatted; absent when the run could not measure it. */
  measured: string | undefined;
  target: string;
  met: boolean;
}

/** A ratio goal: `value / base` against `target` (at most or at least). */
export function ratioGoal(goal: string, value: number | undefined, base: number | undefined, bound: 'at most' | 'at least', target: number): Goal {
  if (value === undefined || base === undefined) return { goal, measured: undefined, target: `${bound} ${target}×`, met: false };
  const ratio = value / base;
  return {
    goal,
    measured: `${ratio.toFixed(2)}× (${round(value)} / ${round(base)})`,
    target: `${bound} ${target}×`,
    met: bound === 'at most' ? ratio <= target : ratio >= target,
  };
}

/** A bound on one figure, e.g. p99 below 30 ms. */
export function boundGoal(goal: string, value: number | undefined, unit: string, bound: 'below' | 'at most', target: number): Goal {
  return {
    goal,
    measured: value === undefined ? undefined : `${round(value)} ${unit}`,
    target: `${bound} ${target} ${unit}`,
    met: value !== undefined && (bound === 'below' ? value < target : value <= target),
  };
}

export function goalsTable(goals: readonly Goal[]): string {
  return [
    '| goal | measured | target | |',
    '|---|---:|---|---|',
    ...goals.map((g) => `| ${g.goal} | ${g.measured ?? 'not measured'} | ${g.target} | ${g.met ? 'met' : '**not met**'} |`),
  ].join('\n');
}

function round(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}
