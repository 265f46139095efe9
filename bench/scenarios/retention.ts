// The retention row (#40 part 4): on a copy of scenario 4's loaded store, a server whose
// `server.retention.max_messages` leaves a tenth of every room expired (100,000 of 1M messages),
// so its purge starts at start-up; the same ingest as scenario 5's rounds runs meanwhile. The row
// sets the ingest rate and svc's longest event-loop stall during the purge beside the big-store
// rounds without it, and how long the purge took.

import path from 'node:path';
import { rmSync } from 'node:fs';
import type { Sizes } from '../lib/sizes.js';
import { round } from '../lib/stats.js';
import { PUBLISHER, startSvc, TOKEN } from '../lib/svc.js';
import { svcTarget } from '../lib/targets.js';

export interface RetentionResult {
  /** Messages the policy leaves expired (a tenth of the store). */
  expired: number;
  /** Messages purged by the end of the round (the metric). */
  purged: number;
  /** Seconds from start-up to the last expired message purged; null when the round ended first. */
  purge_s: number | null;
  /** Ingest rate during the purge (messages/s). */
  ingest_rate: number;
  /** svc's longest event-loop stall during that ingest (ms). */
  event_loop_max_ms: number | null;
}

/** The purged count in /metrics (every kind). */
async function purgedSoFar(port: number): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  let n = 0;
  for (const line of (await r.text()).split('\n'))
    if (line.startsWith('svc_retention_purged_messages_total{')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  return n;
}

/**
 * Runs the retention round in `dir` (a copy of the loaded store of `messages` over `rooms` rooms),
 * then removes it.
 */
export async function runRetention(dir: string, messages: number, rooms: number, s: Sizes): Promise<RetentionResult> {
  const perRoom = Math.floor(messages / rooms);
  const keep = perRoom - Math.floor(perRoom / 10);
  const expired = (perRoom - keep) * rooms;
  const t0 = Date.now();
  const svc = await startSvc({
    dir,
    rooms: [{ id: 'ingest', members: [PUBLISHER] }],
    checkpointBytes: 16 * 1024 * 1024,
    watchStalls: true,
    retention: { max_messages: keep },
  });
  try {
    let doneAt: number | null = null;
    const watch = setInterval(() => {
      if (doneAt !== null) return;
      void purgedSoFar(svc.port).then(
        (n) => {
          if (n >= expired && doneAt === null) doneAt = Date.now();
        },
        () => {},
      );
    }, 500);
    const from = Date.now();
    const ing = await svcTarget(svc).ingest(s.ingest.clients, s.history.ingestSeconds);
    const stall = await svc.stallMaxMs(from, Date.now());
    // The rest of the purge, unmeasured, so its length is known (a bound: a stuck purge ends the wait).
    const end = Date.now() + 600_000;
    while (doneAt === null && Date.now() < end) await new Promise((r) => setTimeout(r, 500));
    clearInterval(watch);
    const purged = await purgedSoFar(svc.port);
    return {
      expired,
      purged,
      purge_s: doneAt === null ? null : round((doneAt - t0) / 1000),
      ingest_rate: Math.round(ing.rate),
      event_loop_max_ms: stall === null ? null : round(stall),
    };
  } finally {
    await svc.stop();
    rmSync(path.resolve(dir), { recursive: true, force: true });
  }
}
