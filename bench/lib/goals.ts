/** One of an issue's goals, judged from figures measured in the same run. */
export interface Goal {
  goal: string;
  /** The measured figure, already formatted; absent when the run could not measure it. */
  measured: string | undefined;
  target: string;
  met: boolean;
}

/** How a measured figure must stand to its target. */
export type Bound = 'below' | 'at most' | 'at least';

const holds = (value: number, bound: Bound, target: number) => (bound === 'below' ? value < target : bound === 'at most' ? value <= target : value >= target);

/** A ratio goal: `value / base` against `target`. */
export function ratioGoal(goal: string, value: number | undefined, base: number | undefined, bound: Bound, target: number): Goal {
  if (value === undefined || base === undefined) return { goal, measured: undefined, target: `${bound} ${target}×`, met: false };
  const ratio = value / base;
  return {
    goal,
    measured: `${ratio.toFixed(2)}× (${round(value)} / ${round(base)})`,
    target: `${bound} ${target}×`,
    met: holds(ratio, bound, target),
  };
}

/** A bound on one figure, e.g. p99 below 30 ms. */
export function boundGoal(goal: string, value: number | undefined, unit: string, bound: Bound, target: number): Goal {
  return {
    goal,
    // One decimal always: 113.6 MiB against "below 114" must not read as 114.
    measured: value === undefined ? undefined : `${value.toFixed(1)} ${unit}`,
    target: `${bound} ${target} ${unit}`,
    met: value !== undefined && holds(value, bound, target),
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
