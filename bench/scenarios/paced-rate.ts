// The paced rate of a run: a share (PACED_SHARE, an eighth) of the messages per second the baseline
// delivered unpaced to every subscriber in the same run, so a paced row leaves the host room by
// construction on any machine; and the saturated flag of a paced row from its host's idle share.

import { PACED_SHARE, type Sizes } from '../lib/sizes.js';
import { isSaturated } from '../lib/verdict.js';
import type { MaxResult } from './live.js';

/** How the run's paced rate was chosen (results.params). */
export interface PacedRate {
  rate: number;
  /** Messages per second the baseline sustained unpaced (deliveries/s over subscribers), when measured. */
  baseline_unpaced_msgs_per_s: number | null;
  share: number;
}

/**
 * The paced rate from the baseline's unpaced fan-out: PACED_SHARE of the messages per second every
 * subscriber received; the size's fixed rate when the calibration failed or was incomplete.
 */
export function pacedRate(baseline: MaxResult | null, subscribers: number, fallback: number): PacedRate {
  const perSub = baseline?.complete && baseline.deliveries_per_s ? baseline.deliveries_per_s / subscribers : null;
  const rate = perSub ? Math.max(1, Math.round(PACED_SHARE * perSub)) : fallback;
  return { rate, baseline_unpaced_msgs_per_s: perSub === null ? null : Math.round(perSub), share: PACED_SHARE };
}

/** The sizes with the paced phases at `rate`. */
export function withPacedRate(s: Sizes, rate: number): Sizes {
  return { ...s, fanout: { ...s.fanout, rate } };
}

/**
 * Sets `saturated` of a combined paced row from its median idle share (the flag of each repetition
 * is in its own figures; the row's verdict follows the median like every other figure).
 */
export function markSaturation<T extends { idle_pct?: number | null; saturated?: boolean }>(row: T | null): T | null {
  if (row) row.saturated = isSaturated(row.idle_pct) ?? false;
  return row;
}
