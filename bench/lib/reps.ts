// Repetitions of one scenario: svc and the baseline run alternately, and each figure is reported as
// the median over the repetitions with its spread; svc / baseline ratios come from the medians,
// their spread from the pairs run back to back (a busy moment on the machine moves both sides).

import { round } from './stats.js';

/** The range of one figure over the repetitions, and each repetition's value in run order. */
export interface Spread {
  min: number;
  max: number;
  values: (number | null)[];
}

/** A result whose numbers are medians over `reps` repetitions, with the spread of each. */
export type Repeated<T> = T & { reps: number; spread: Partial<Record<keyof T & string, Spread>> };

/** svc / baseline for one figure: `ratio` of the medians; `min`/`max` over the per-pair ratios. */
export interface RatioSpread {
  ratio: number | null;
  min: number | null;
  max: number | null;
  pairs: (number | null)[];
}

const isNum = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/** The median of the values (the mean of the middle two for an even count); NaN when empty. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * One result from repetitions (failed ones are null and left out): every number becomes its median
 * with its spread, the `summed` keys (counts such as errors) are added up, and a flag is true only
 * when it was true in every repetition. Null when no repetition produced a result.
 */
export function combine<T extends object>(runs: readonly (T | null)[], summed: readonly string[] = []): Repeated<T> | null {
  const ok = runs.filter((r): r is T => r !== null);
  if (ok.length === 0) return null;
  const out: Record<string, unknown> = {};
  const spread: Record<string, Spread> = {};
  for (const key of Object.keys(ok[0]!)) {
    const vals = ok.map((r) => (r as Record<string, unknown>)[key]);
    const nums = vals.filter(isNum);
    if (vals.every((v) => typeof v === 'boolean')) out[key] = vals.every(Boolean);
    else if (summed.includes(key)) out[key] = nums.reduce((a, b) => a + b, 0);
    else if (nums.length === 0) out[key] = vals[0] ?? null;
    else {
      out[key] = round(median(nums));
      spread[key] = { min: Math.min(...nums), max: Math.max(...nums), values: vals.map((v) => (isNum(v) ? v : null)) };
    }
  }
  return { ...out, reps: ok.length, spread } as Repeated<T>;
}

const div = (a: unknown, b: unknown): number | null => (isNum(a) && isNum(b) && b !== 0 ? Math.round((a / b) * 1000) / 1000 : null);

/**
 * svc / baseline for each of `keys`: the ratio of the combined medians, and the ratio of each pair
 * (repetition k of svc over repetition k of the baseline, run next to each other).
 */
export function ratios<T extends object, K extends keyof T & string>(
  svcRuns: readonly (T | null)[],
  baseRuns: readonly (T | null)[],
  keys: readonly K[],
): Partial<Record<K, RatioSpread>> {
  const svc = combine(svcRuns);
  const base = combine(baseRuns);
  const out: Partial<Record<K, RatioSpread>> = {};
  for (const key of keys) {
    const pairs = svcRuns.map((s, k) => div(s?.[key], baseRuns[k]?.[key]));
    const known = pairs.filter(isNum);
    out[key] = {
      ratio: div(svc?.[key], base?.[key]),
      min: known.length ? Math.min(...known) : null,
      max: known.length ? Math.max(...known) : null,
      pairs,
    };
  }
  return out;
}
