// Sizes of a run: full (the published numbers), --quick (every scenario, tiny, two repetitions, a minute or two)
// and --quick --smoke (CI: half-second phases, NATS only when already installed).

/**
 * Paced phases publish at this share of the rate the baseline sustained unpaced in the same run.
 * An eighth, so every paced row leaves the 2-core host at least 20% idle by construction: a paced
 * message costs several times its unpaced share of CPU (no batching at a low rate: svc 5,757 µs per
 * message paced against 100 × 12.3 µs unpaced in the 2026-12-01 run, the baseline 3,676 against
 * 100 × 16), and the rows with more processes (two or four instances and a database, the wake's
 * runner and MCP client) cost more again. At a quarter (until 2026-12-01) the fan-out row left
 * 28% idle, the Postgres cross row and the wakes 17%, four instances 8%; busy time follows the
 * rate, so an eighth leaves the busiest about half idle.
 */
export const PACED_SHARE = 0.125;

export interface Sizes {
  name: 'full' | 'quick' | 'smoke';
  ingest: { clients: number; seconds: number };
  /**
   * `rate` is the paced rate only where the run cannot measure the baseline's unpaced rate; every
   * paced phase otherwise publishes at PACED_SHARE of it (lib/calibrate.ts).
   */
  fanout: { subscribers: number; rate: number; seconds: number; maxSeconds: number; inflight: number };
  /** `smallMessages`: the store the history page is also timed on (the 1M / 10k ratio). */
  history: { messages: number; smallMessages: number; rooms: number; queries: number; searches: number; ingestSeconds: number };
  /**
   * attach_10k: `n` attached agents on one instance, held by `procs` subscriber processes that
   * connect `wave` at a time each; `broadcasts` room messages, one at a time, to all of them;
   * `warm` agents attach and leave first (code loaded on first use is not per-attachment memory);
   * the resident memory after the storm is the lowest over `settleMs` (the garbage of the storm
   * is collected a few seconds after it, when allocation stops).
   */
  attach: { n: number; procs: number; wave: number; broadcasts: number; warm: number; settleMs: number };
  /** The upload row: `uploaders` connections each uploading `uploadBytes` files back to back beside the ingest. */
  files: { uploadBytes: number; uploaders: number };
  /**
   * Repetitions of ingest and fan-out on svc and on the baseline, run alternately, each on a fresh
   * process; the figures are their medians. `--reps N` overrides it.
   */
  reps: number;
  /** Hard limit for the whole run (everything started is stopped then). */
  budgetSeconds: number;
  /** Added to the budget for each repetition beyond `reps` (one ingest and one fan-out per side, and one of each Postgres row). */
  repSeconds: number;
  installNats: boolean;
}

export const FULL: Sizes = {
  name: 'full',
  ingest: { clients: 50, seconds: 10 },
  fanout: { subscribers: 100, rate: 1000, seconds: 10, maxSeconds: 10, inflight: 8 },
  history: { messages: 1_000_000, smallMessages: 10_000, rooms: 100, queries: 2000, searches: 2000, ingestSeconds: 10 },
  attach: { n: 10_000, procs: 4, wave: 50, broadcasts: 20, warm: 10, settleMs: 5000 },
  files: { uploadBytes: 10 * 1024 * 1024, uploaders: 2 },
  reps: 3,
  // 1,020 s until the instance curve and the wake rows came (about 3 minutes more).
  budgetSeconds: 1500,
  repSeconds: 160,
  installNats: true,
};

export const QUICK: Sizes = {
  name: 'quick',
  ingest: { clients: 50, seconds: 2 },
  fanout: { subscribers: 20, rate: 200, seconds: 2, maxSeconds: 2, inflight: 8 },
  history: { messages: 20_000, smallMessages: 2_000, rooms: 10, queries: 200, searches: 200, ingestSeconds: 2 },
  attach: { n: 1000, procs: 2, wave: 50, broadcasts: 10, warm: 10, settleMs: 3000 },
  files: { uploadBytes: 10 * 1024 * 1024, uploaders: 2 },
  reps: 2,
  budgetSeconds: 520,
  repSeconds: 40,
  installNats: true,
};

export const SMOKE: Sizes = {
  name: 'smoke',
  // Half-second phases: the smoke run checks that every scenario runs and the shape of its results
  // (test/bench/smoke-*.test.ts), not the numbers, and each unpaced phase keeps the cores busy for
  // its whole length; it is the longest file of `npm test`.
  ingest: { clients: 10, seconds: 0.5 },
  fanout: { subscribers: 5, rate: 50, seconds: 0.5, maxSeconds: 0.5, inflight: 4 },
  // 2,000 messages: the search check wants 20 hits of a word in 1% of them.
  history: { messages: 2_000, smallMessages: 500, rooms: 4, queries: 25, searches: 25, ingestSeconds: 0.5 },
  // One subscriber process and no warm-up pool: each process start costs seconds on a busy machine;
  // 50 attachments (one wave) still give a memory per attachment and a broadcast to all.
  attach: { n: 50, procs: 1, wave: 50, broadcasts: 2, warm: 0, settleMs: 500 },
  // 256 KiB uploads: the row's shape, not its speed.
  files: { uploadBytes: 256 * 1024, uploaders: 1 },
  // One repetition keeps the smoke run short; the shape of the results is the same.
  reps: 1,
  // A bound on a hang, not a speed target: a full test run beside other work on 2 cores took 207 s.
  budgetSeconds: 540,
  repSeconds: 20,
  installNats: false,
};
