// The database's transactions over a window, read so that PostgreSQL's late reports land where they
// belong. pg_stat_database's counts come from each backend at most once a second, and the last
// second's before a backend goes idle 10 s later (PGSTAT_IDLE_INTERVAL): a window read right after a
// burst (agents attaching, a warm-up) counts that burst's transactions as its own, and one read right
// after its load misses its last. So a window starts after a settle, and ends after another, less
// what the instances do at rest meanwhile, sampled once that settle is over. (Sampled at the end of
// the first settle until 2026-12-02, the rest rate took in the warm-up's last reports, landing 10 s
// after it: the same paced row to one agent read 0.90 to 1.20 transactions a message, where each
// send alone is one.)

import type { Sizes } from './sizes.js';
import { nowMs, round, sleep } from './stats.js';

/** How long backends may take to report: a full run waits it out; quick and smoke runs do not. */
export const settleMs = (s: Sizes): number => (s.name === 'full' ? 11_000 : 1_100);
/** The at-rest sample after the closing settle. */
const REST_MS = 2_000;

export interface XactWindow {
  /** Ends the window (after the settle): its transactions, less the at-rest ones of that settle (null: unknown). */
  stop(): Promise<{ xacts: number | null; restPerS: number | null }>;
}

/** Starts a window after the settle; `read` gives the counter (transactions so far). */
export async function xactWindow(read: () => Promise<number>, settle: number): Promise<XactWindow> {
  const get = () => read().catch(() => null);
  await sleep(settle);
  const x0 = await get();
  return {
    async stop() {
      const t1 = nowMs();
      await sleep(settle);
      const x1 = await get();
      const tx1 = nowMs();
      // A short settle (quick, smoke) leaves the load's reports in any at-rest sample: none is taken.
      let restPerS: number | null = null;
      if (settle >= 2 * REST_MS && x1 !== null) {
        await sleep(REST_MS);
        const x2 = await get();
        if (x2 !== null) restPerS = round(((x2 - x1) * 1000) / (nowMs() - tx1));
      }
      if (x0 === null || x1 === null) return { xacts: null, restPerS };
      return { xacts: Math.max(0, x1 - x0 - ((restPerS ?? 0) * (tx1 - t1)) / 1000), restPerS };
    },
  };
}
