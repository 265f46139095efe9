// The retention row (#40 part 4): on a copy of scenario 4's loaded store, a server whose
// `server.retention.max_messages` leaves a tenth of every room expired (100,000 of 1M messages);
// the same ingest as scenario 5's rounds runs during the purge. The row sets the ingest rate and
// svc's longest event-loop stall during the purge beside the big-store rounds without it, and how
// long the purge took.
//
// The server is brought to the state those rounds measure in (history.ts freshRound: the search
// backlog the loader leaves worked off, a fifth of the ingest run unmeasured) before the policy is
// added, by a reload of svc.yaml: a purge from start-up would be measured against a cold process
// still indexing the store, which the rounds without it are not (it halved the ingest rate with
// or without a purge: bench/tools/retention-round.ts). The purge interval is lowered so that the
// purge starts at the reload rather than a minute later.

import path from 'node:path';
import { rmSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { untilIdle } from '../lib/procs.js';
import type { Sizes } from '../lib/sizes.js';
import { round } from '../lib/stats.js';
import { defaultNodeArgs, PUBLISHER, startSvc, svcConfig, TOKEN, type SvcOptions, type SvcServer } from '../lib/svc.js';
import { yieldingIngest } from '../lib/yielding-ingest.js';

export interface RetentionResult {
  /** Messages the policy leaves expired (a tenth of the store). */
  expired: number;
  /** Messages purged by the end of the round (the metric). */
  purged: number;
  /** Seconds from the policy's reload to the last expired message purged; null when the round ended first. */
  purge_s: number | null;
  /** Ingest rate during the purge (messages/s). */
  ingest_rate: number;
  /** svc's longest event-loop stall during that ingest (ms): the ingest's own stalls included. */
  event_loop_max_ms: number | null;
  /** The purge's writes over the whole purge (svc_retention_write_seconds), and how long they held the loop. */
  writes: number;
  /** Writes whose synchronous part took over 25 ms (the target's bound: the stall the purge causes). */
  writes_over_25ms: number;
  /** The smallest of the histogram's bounds that every write stayed within (ms); null past the last. */
  write_max_bound_ms: number | null;
}

/** svc's retention series in /metrics: each line's value by its name and labels as written. */
async function metrics(port: number): Promise<Map<string, number>> {
  const r = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const out = new Map<string, number>();
  for (const line of (await r.text()).split('\n'))
    if (line.startsWith('svc_retention_')) out.set(line.slice(0, line.lastIndexOf(' ')), Number(line.slice(line.lastIndexOf(' ') + 1)));
  return out;
}

/** What svc_retention_write_seconds says of the purge's writes. */
function writeStats(m: Map<string, number>): Pick<RetentionResult, 'writes' | 'writes_over_25ms' | 'write_max_bound_ms'> {
  const writes = m.get('svc_retention_write_seconds_count') ?? 0;
  const within = (le: string) => m.get(`svc_retention_write_seconds_bucket{le="${le}"}`) ?? 0;
  const bounds = [...m.keys()].flatMap((k) => /_bucket\{le="([\d.]+)"\}$/.exec(k)?.[1] ?? []).sort((a, b) => Number(a) - Number(b));
  const all = bounds.find((le) => within(le) >= writes);
  return {
    writes,
    writes_over_25ms: writes - within('0.025'),
    write_max_bound_ms: all === undefined ? null : Number(all) * 1000,
  };
}

/** The purged count (every kind) in svc's retention series. */
function purgedOf(m: Map<string, number>): number {
  let n = 0;
  for (const [k, v] of m) if (k.startsWith('svc_retention_purged_messages_total{')) n += v;
  return n;
}

const purgedSoFar = async (port: number): Promise<number> => purgedOf(await metrics(port));

/**
 * Runs the retention round in `dir` (a copy of the loaded store of `messages` over `rooms` rooms),
 * then removes it. `purge: false` runs the same round without adding the policy (the control of
 * bench/tools/retention-round.ts).
 */
export async function runRetention(
  dir: string,
  messages: number,
  rooms: number,
  s: Sizes,
  purge = true,
  /** Called with the server and the measured window's start (ms) once it ended: the server runs with the stall watch's detail and --trace-gc. */
  pauses?: (svc: SvcServer, from: number) => void,
): Promise<RetentionResult> {
  const perRoom = Math.floor(messages / rooms);
  const keep = perRoom - Math.floor(perRoom / 10);
  const expired = (perRoom - keep) * rooms;
  const opts: SvcOptions = {
    dir,
    rooms: [{ id: 'ingest', members: [PUBLISHER] }],
    checkpointBytes: 16 * 1024 * 1024,
    watchStalls: pauses ? 'detail' : true,
    env: { SVC_RETENTION_INTERVAL_MS: '500' },
    ...(pauses ? { nodeArgs: [...defaultNodeArgs, '--trace-gc', '--trace-gc-ignore-scavenger'], outputChars: 1 << 20 } : {}),
  };
  const svc = await startSvc(opts);
  try {
    await untilIdle(svc.pid, 120);
    await yieldingIngest(svc.port, s.ingest.clients, s.history.ingestSeconds / 5);
    const t0 = Date.now();
    if (purge) {
      writeFileSync(path.join(dir, 'svc.yaml'), stringify(svcConfig({ ...opts, retention: { max_messages: keep } })), { mode: 0o600 });
      process.kill(svc.pid!, 'SIGHUP');
      // Measured once the purge is under way (bounded: a purge that never starts shows as none
      // purged), and past the second reload the file's change brings 200 ms after the signal's.
      for (const end = Date.now() + 30_000; Date.now() < end && (await purgedSoFar(svc.port)) === 0; )
        await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 500));
    }
    let doneAt: number | null = null;
    const watch = setInterval(() => {
      if (doneAt !== null || !purge) return;
      void purgedSoFar(svc.port).then(
        (n) => {
          if (n >= expired && doneAt === null) doneAt = Date.now();
        },
        () => {},
      );
    }, 500);
    const from = Date.now();
    const ing = await yieldingIngest(svc.port, s.ingest.clients, s.history.ingestSeconds);
    const stall = await svc.stallMaxMs(from, Date.now());
    pauses?.(svc, from);
    // The rest of the purge, unmeasured, so its length is known (a bound: a stuck purge ends the wait).
    const end = Date.now() + 600_000;
    while (purge && doneAt === null && Date.now() < end) await new Promise((r) => setTimeout(r, 500));
    clearInterval(watch);
    const last = await metrics(svc.port);
    const purged = purgedOf(last);
    return {
      ...writeStats(last),
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
