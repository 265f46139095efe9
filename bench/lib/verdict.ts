// Whether a target is met: met, missed, or saturated when the host had too little idle CPU while
// the row was measured for the figure to say anything about svc (a verdict then would be about
// the machine). Pure, so the rule is unit-tested.

/** A row measured with less idle CPU than this share of the host (%) is saturated. */
export const SATURATED_BELOW_PCT = 20;

export type Verdict = 'met' | 'missed' | 'saturated' | '—';

/** True when `idlePct` is under the threshold, false when above, null when unknown. */
export function isSaturated(idlePct: number | null | undefined): boolean | null {
  return idlePct === null || idlePct === undefined || !Number.isFinite(idlePct) ? null : idlePct < SATURATED_BELOW_PCT;
}

/**
 * The verdict of one target: `ok` is whether the figure meets it (null: no figure); `idlePct`, for
 * the rows whose load leaves the host room by construction, is the host's idle share during them.
 * Saturated wins over met and missed: on a saturated host neither says anything.
 */
export function verdict(ok: boolean | null, idlePct?: number | null): Verdict {
  if (ok === null) return '—';
  if (isSaturated(idlePct)) return 'saturated';
  return ok ? 'met' : 'missed';
}

/** The lowest known idle share of several measurements (a row is as saturated as its busiest part). */
export function lowestIdle(...pcts: (number | null | undefined)[]): number | null {
  const known = pcts.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return known.length ? Math.min(...known) : null;
}

/** `x <= limit` (null when x is unknown). */
export const atMost = (x: number | null | undefined, limit: number): boolean | null => (x === null || x === undefined ? null : x <= limit);
/** `x >= limit` (null when x is unknown). */
export const atLeast = (x: number | null | undefined, limit: number): boolean | null => (x === null || x === undefined ? null : x >= limit);
/** Both hold; one unknown leaves the other. */
export const both = (a: boolean | null, b: boolean | null): boolean | null => (a === null || b === null ? (a ?? b) : a && b);
