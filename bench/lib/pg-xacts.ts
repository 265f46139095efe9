// The database's transactions over a window, read so that PostgreSQL's late reports land where they
// belong. pg_stat_database's counts come from each backend at most once a second, and 10 s later
// when its report met a lock: a window read right after a burst (agents attaching, a warm-up)
// counts that burst's transactions as its own, and one read right after its load misses its last.
// So a window starts after a settle, and ends after another, less what the instances do at rest
// meanwhile (sampled at the end of the first settle).

import type { Sizes } from './sizes.js';
import { nowMs, round, sleep } from './stats.js';

/** How long backends may take to report: a full run waits it out; quick and smoke runs do not. */
export const settleMs = (s: Sizes): number => (s.name === 'full' ? 11_000 : 1_100);
/** The at-rest sample at the end of the first settle. */
const REST_MS = 2_000;

export interface XactWindow {
  /** Transactions a second with nothing sent, from the first settle's last REST_MS (null: unknown). */
  restPerS: number | null;
  /** Ends the window (after the settle): its transactions, less the at-rest ones of that settle. */
  stop(): Promise<number | null>;
}

/** Starts a window after the settle; `read` gives the counter (transactions so far). */
export async function xactWindow(read: () => Promise<number>, settle: number): Promise<XactWindow> {
  const get = () => read().catch(() => null);
  // A short settle (quick, smoke) leaves the burst's reports in any at-rest sample: none is taken.
  const sampled = settle >= 2 * REST_MS;
  await sleep(sampled ? settle - REST_MS : settle);
  const a = sampled ? await get() : null;
  const ta = nowMs();
  if (sampled) await sleep(REST_MS);
  const x0 = await get();
  const t0 = nowMs();
  const restPerS = a !== null && x0 !== null ? round(((x0 - a) * 1000) / (t0 - ta)) : null;
  return {
    restPerS,
    async stop() {
      const t1 = nowMs();
      await sleep(settle);
      const x1 = await get();
      if (x0 === null || x1 === null) return null;
      return Math.max(0, x1 - x0 - ((restPerS ?? 0) * (nowMs() - t1)) / 1000);
    },
  };
}
