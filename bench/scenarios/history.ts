// Scenarios 4 and 5: a store of N messages over R rooms (filled by bench/loader.ts through the
// store), then svc serve on it: start-up time, history pages at random cursors, full-text search
// for a word in ~1% of the messages, resident memory, file size, and closed-loop ingest on the big
// store (write cost versus size, longest stall).

import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { Conn, getBytes } from '../lib/http.js';
import { launch, exited, idleMeter, rssMb, tail, untilIdle } from '../lib/procs.js';
import { median } from '../lib/reps.js';
import type { Sizes } from '../lib/sizes.js';
import { nowMs, round, Samples } from '../lib/stats.js';
import { ROOT, PUBLISHER, SEARCH_WORD, startSvc, TOKEN, type SvcServer } from '../lib/svc.js';
import type { IngestRun } from '../lib/targets.js';
import { isSaturated, lowestIdle } from '../lib/verdict.js';
import { runRetention, type RetentionResult } from './retention.js';
import { yieldingIngest } from '../lib/yielding-ingest.js';

export interface HistoryResult {
  messages: number;
  p50_ms: number | null;
  p99_ms: number | null;
  /** The same pages on a small store (`messages_small`, 10,000 in a full run): the target is p99 / p99_ms_small. */
  messages_small: number;
  p50_ms_small: number | null;
  p99_ms_small: number | null;
  /** p99_ms / p99_ms_small: what history costs as it grows. */
  p99_ratio: number | null;
  /** The host's lowest idle share (%) over the page and search timings, and whether it was under 20%. */
  idle_pct: number | null;
  saturated: boolean;
  /** GET /v1/search for a word in ~1% of the messages, limit 20: half first pages, half at a random cursor. */
  search_p50_ms: number | null;
  search_p99_ms: number | null;
  startup_s: number;
  /** Resident memory of svc serve after start-up and the history pages (MB). */
  rss_mb: number | null;
  /** Resident memory right after start-up (MB). */
  rss_idle_mb: number | null;
  /** Peak resident memory over scenarios 4 and 5, checkpoints included (MB). */
  rss_peak_mb: number | null;
  db_mb: number;
  /** Longest request latency seen during the first ingest on the big store (checkpoint stalls show here). */
  max_pause_ms: number | null;
  /**
   * Ingest rate on the big store (messages/s): the median of `reps` rounds (`ingest_rates`), the
   * first on the server above, the others each on a fresh copy of the loaded store.
   */
  ingest_rate: number;
  ingest_rates: number[];
  /**
   * The same ingest on an empty store at the same journal threshold (messages/s): the median of
   * `reps` rounds (`ingest_rates_empty`), one before each big-store round. The write cost is
   * ingest_rate over it.
   */
  ingest_rate_empty: number;
  ingest_rates_empty: number[];
  ingest_p99_ms: number | null;
  /** Checkpoints of the whole database that started during a big-store round: the fewest of any round. */
  checkpoints_during_ingest: number;
  checkpoints_runs: number[];
  /**
   * svc's own longest event-loop stall during a big-store round, to the millisecond
   * (bench/lib/loop-stall.mjs): the longest of the rounds (`event_loop_max_ms_runs`), since no
   * round may stall over 25 ms (the median until 2026-12-01 hid a round of 109 ms).
   */
  event_loop_max_ms: number | null;
  event_loop_max_ms_runs: (number | null)[];
  /** The host's idle share during that ingest (%). */
  ingest_idle_pct: number | null;
  fill_s: number;
  /** Time svc serve took to stop (its final checkpoint of the whole database). */
  shutdown_s: number;
  /** The retention row: a tenth of the loaded store purged while the same ingest runs (retention.ts). */
  retention: RetentionResult | null;
}

const CHECKPOINT_BYTES = 16 * 1024 * 1024;

/** The newest journal generation next to the database (each checkpoint starts a new one). */
export function lastGeneration(dbFile: string): number {
  const prefix = `${path.basename(dbFile)}.journal.`;
  const gens = readdirSync(path.dirname(dbFile))
    .filter((n) => n.startsWith(prefix))
    .map((n) => Number(n.slice(prefix.length)))
    .filter(Number.isFinite);
  return gens.length ? Math.max(...gens) : 0;
}

interface LoaderOutput {
  seconds: number;
  messages: number;
  db_bytes: number;
  cursors_file: string;
  search_cursors_file: string;
}

async function load(dir: string, messages: number, rooms: number): Promise<LoaderOutput> {
  const child = launch(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/loader.ts'), '--dir', dir, '--messages', String(messages), '--rooms', String(rooms)],
    {
      cwd: ROOT,
    },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const errTail = tail(child);
  child.stderr!.on('data', (d: Buffer) => process.stderr.write(d));
  const code = await exited(child);
  if (code !== 0) throw new Error(`loader exited with ${code}: ${errTail()}`);
  return JSON.parse(out.trim().split('\n').pop()!) as LoaderOutput;
}

/**
 * Search latency: `queries` searches for SEARCH_WORD with limit 20, alternately the first page and
 * the page before a random matching message (every page is full), after a short warm-up.
 */
async function searchLatency(
  conn: Conn,
  cursors: string[],
  queries: number,
  note: (m: string) => void,
): Promise<{ p50_ms: number | null; p99_ms: number | null }> {
  const latency = new Samples();
  const warmup = Math.min(20, queries);
  for (let q = 0; q < warmup + queries; q++) {
    const before =
      q % 2 === 1 && cursors.length > 0 ? `&before=${encodeURIComponent(cursors[Math.floor(Math.random() * cursors.length)]!)}` : '';
    const t0 = nowMs();
    const r = await conn.request(getBytes(`/v1/search?q=${SEARCH_WORD}&limit=20${before}`, TOKEN));
    const ms = nowMs() - t0;
    if (r.status !== 200) throw new Error(`search: ${r.status} ${r.body.toString().slice(0, 200)}`);
    if (q === 0 && (JSON.parse(r.body.toString()) as { messages: unknown[] }).messages.length !== 20)
      note('search: a page held fewer than 20 messages');
    if (q >= warmup) latency.push(ms);
  }
  const x = latency.summary();
  return { p50_ms: x.p50_ms, p99_ms: x.p99_ms };
}

/**
 * `queries` history pages (limit 100) before random cursors of the loader's, after a warm-up; the
 * host's idle share over them.
 */
async function pageLatency(
  conn: Conn,
  cursorsFile: string,
  queries: number,
  note: (m: string) => void,
): Promise<{ latency: Samples; idle: number | null }> {
  const cursors = JSON.parse(readFileSync(cursorsFile, 'utf8')) as Record<string, string[]>;
  const pool = Object.entries(cursors).flatMap(([room, ids]) => ids.map((id) => ({ room, id })));
  const latency = new Samples();
  const warmup = Math.min(50, queries);
  let idle = idleMeter();
  for (let q = 0; q < warmup + queries; q++) {
    if (q === warmup) idle = idleMeter();
    const c = pool[Math.floor(Math.random() * pool.length)]!;
    const t0 = nowMs();
    const r = await conn.request(getBytes(`/v1/rooms/${c.room}/messages?before=${encodeURIComponent(c.id)}&limit=100`, TOKEN));
    const ms = nowMs() - t0;
    if (r.status !== 200) throw new Error(`history page: ${r.status} ${r.body.toString().slice(0, 200)}`);
    if (q === 0 && (JSON.parse(r.body.toString()) as { messages: unknown[] }).messages.length !== 100)
      note('history: a page held fewer than 100 messages');
    if (q >= warmup) latency.push(ms);
  }
  return { latency, idle: idle() };
}

/**
 * The same history pages on a small store (`smallMessages` over rooms of at least 1,000 messages
 * each where it can, so cursors have room to be random), for the 1M / 10k ratio.
 */
async function smallStore(
  dir: string,
  s: Sizes,
  log: (m: string) => void,
  note: (m: string) => void,
): Promise<{ messages: number; latency: Samples; idle: number | null }> {
  const rooms = Math.max(1, Math.min(s.history.rooms, Math.floor(s.history.smallMessages / 1000)));
  log(`history: loading the small store, ${s.history.smallMessages} messages over ${rooms} rooms`);
  const loaded = await load(dir, s.history.smallMessages, rooms);
  const svc = await startSvc({ dir, rooms: [{ id: 'ingest', members: [PUBLISHER] }] });
  try {
    const conn = await Conn.open(svc.port);
    try {
      return { messages: loaded.messages, ...(await pageLatency(conn, loaded.cursors_file, s.history.queries, note)) };
    } finally {
      conn.close();
    }
  } finally {
    await svc.stop();
  }
}

/** One closed-loop ingest of scenario 5 on a running server: what the big-store rows read. */
interface IngestRound {
  ing: IngestRun;
  stall: number | null;
  checkpoints: number;
  idle: number | null;
}

async function ingestRound(svc: SvcServer, dir: string, s: Sizes, note: (m: string) => void, what: string): Promise<IngestRound> {
  const dbFile = path.join(dir, 'svc.db');
  const gen0 = lastGeneration(dbFile);
  const idle = idleMeter();
  const from = Date.now();
  const ing = await yieldingIngest(svc.port, s.ingest.clients, s.history.ingestSeconds);
  const stall = await svc.stallMaxMs(from, Date.now());
  if (ing.errors > 0) note(`svc ingest on ${what}: ${ing.errors} failed requests (first: ${ing.firstError})`);
  return { ing, stall, checkpoints: lastGeneration(dbFile) - gen0, idle: idle() };
}

/** Before a measured round: the search backlog worked off, then a fifth of the round's ingest, unmeasured. */
async function warmUp(svc: SvcServer, s: Sizes): Promise<void> {
  await untilIdle(svc.pid, 120);
  await yieldingIngest(svc.port, s.ingest.clients, s.history.ingestSeconds / 5);
}

/**
 * A round of ingest on its own server in `dir` (an empty folder, or a copy of the loaded store),
 * with the big store's journal threshold. The server first works off the search backlog the loader
 * leaves (none on an empty store) and ingests for a fifth of the time, unmeasured: the first big
 * store's server has served scenario 4's pages and searches before its ingest, and a fresh
 * process runs its first seconds unoptimized.
 */
async function freshRound(dir: string, s: Sizes, note: (m: string) => void, what: string): Promise<IngestRound> {
  mkdirSync(dir, { recursive: true });
  const svc = await startSvc({
    dir,
    rooms: [{ id: 'ingest', members: [PUBLISHER] }],
    checkpointBytes: CHECKPOINT_BYTES,
    watchStalls: true,
  });
  try {
    await warmUp(svc, s);
    return await ingestRound(svc, dir, s, note, what);
  } finally {
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A copy of the store files of `from` (svc.db and its journals) in a new folder `to`. */
function copyStore(from: string, to: string): void {
  mkdirSync(to);
  for (const name of readdirSync(from).filter((n) => n.startsWith('svc.db'))) copyFileSync(path.join(from, name), path.join(to, name));
}

/** Runs scenario 4 (on the small store, then the big one) and the big-store half of scenario 5. */
export async function runHistory(dir: string, s: Sizes, log: (m: string) => void, note: (m: string) => void): Promise<HistoryResult> {
  const smallDir = path.join(dir, 'small');
  mkdirSync(smallDir);
  const small = await smallStore(smallDir, s, log, note);
  rmSync(smallDir, { recursive: true, force: true });
  // The write cost's rounds alternate, as every repeated row does: empty, big, empty, big, ...
  const rounds = Math.max(1, s.reps);
  log(`history: ingest on an empty store (the write cost's reference, round 1 of ${rounds})`);
  const empty = [await freshRound(path.join(dir, 'empty-1'), s, note, 'an empty store')];
  log(`history: loading ${s.history.messages} messages over ${s.history.rooms} rooms`);
  const loaded = await load(dir, s.history.messages, s.history.rooms);
  log(`history: loaded in ${loaded.seconds.toFixed(1)} s, ${(loaded.db_bytes / 1048576).toFixed(0)} MB; starting svc serve`);
  const dbFile = path.join(dir, 'svc.db');
  for (let k = 2; k <= rounds; k++) copyStore(dir, path.join(dir, `big-${k}`));
  copyStore(dir, path.join(dir, 'retention'));
  // A 16 MiB journal threshold (default 64) so the ingest on the big store includes checkpoints of
  // the whole database: their stall is what scenario 5 looks for.
  const svc = await startSvc({
    dir,
    rooms: [{ id: 'ingest', members: [PUBLISHER] }],
    checkpointBytes: CHECKPOINT_BYTES,
    watchStalls: true,
  });
  let shutdownS = 0;
  // Resident memory is sampled all along, so the peak (a checkpoint's copy included) is what counts.
  const idleRss = rssMb(svc.pid);
  let peakRss = idleRss ?? 0;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(svc.pid) ?? 0)), 100);
  try {
    const startup_s = svc.startupMs / 1000;

    const conn = await Conn.open(svc.port);
    const { latency, idle: pagesIdle } = await pageLatency(conn, loaded.cursors_file, s.history.queries, note);
    const searchIdle = idleMeter();
    const search = await searchLatency(
      conn,
      JSON.parse(readFileSync(loaded.search_cursors_file, 'utf8')) as string[],
      s.history.searches,
      note,
    );
    const idlePct = lowestIdle(small.idle, pagesIdle, searchIdle());
    conn.close();
    // Steady state: after start-up and the history pages, before ingest and its checkpoint.
    const steadyRss = rssMb(svc.pid);
    const db_mb = statSync(dbFile).size / 1048576;

    log(`history: ingest on the big store (round 1 of ${rounds})`);
    // Warmed up as every other round: the pages and searches before it left the write path's code
    // cold, and this round alone took its first writes unoptimized (its stall was the worst of the
    // three in every run of 2026-12-01).
    await warmUp(svc, s);
    const big = [await ingestRound(svc, dir, s, note, 'the big store')];
    const il = big[0]!.ing.latency.summary();
    clearInterval(sampler);

    const t0 = nowMs();
    await svc.stop();
    shutdownS = (nowMs() - t0) / 1000;
    for (let k = 2; k <= rounds; k++) {
      log(`history: ingest on an empty store (round ${k} of ${rounds})`);
      empty.push(await freshRound(path.join(dir, `empty-${k}`), s, note, 'an empty store'));
      log(`history: ingest on a copy of the loaded store (round ${k} of ${rounds})`);
      big.push(await freshRound(path.join(dir, `big-${k}`), s, note, 'the big store'));
    }
    log('history: ingest on a copy of the loaded store while retention purges a tenth of it');
    const retention = await runRetention(path.join(dir, 'retention'), loaded.messages, s.history.rooms, s);
    const rates = big.map((r) => Math.round(r.ing.rate));
    const emptyRates = empty.map((r) => Math.round(r.ing.rate));
    const stalls = big.map((r) => (r.stall === null ? null : round(r.stall)));
    const measured = stalls.filter((x) => x !== null);
    const h = latency.summary();
    const hs = small.latency.summary();
    return {
      messages: loaded.messages,
      p50_ms: h.p50_ms,
      p99_ms: h.p99_ms,
      messages_small: small.messages,
      p50_ms_small: hs.p50_ms,
      p99_ms_small: hs.p99_ms,
      p99_ratio: h.p99_ms !== null && hs.p99_ms ? Math.round((h.p99_ms / hs.p99_ms) * 1000) / 1000 : null,
      idle_pct: idlePct,
      saturated: isSaturated(idlePct) ?? false,
      search_p50_ms: search.p50_ms,
      search_p99_ms: search.p99_ms,
      startup_s: round(startup_s),
      rss_mb: steadyRss === null ? null : Math.round(steadyRss),
      rss_idle_mb: idleRss === null ? null : Math.round(idleRss),
      rss_peak_mb: peakRss > 0 ? Math.round(peakRss) : null,
      db_mb: Math.round(db_mb),
      max_pause_ms: il.max_ms,
      ingest_rate: Math.round(median(rates)),
      ingest_rates: rates,
      ingest_rate_empty: Math.round(median(emptyRates)),
      ingest_rates_empty: emptyRates,
      ingest_p99_ms: il.p99_ms,
      checkpoints_during_ingest: Math.min(...big.map((r) => r.checkpoints)),
      checkpoints_runs: big.map((r) => r.checkpoints),
      event_loop_max_ms: measured.length > 0 ? round(Math.max(...measured)) : null,
      event_loop_max_ms_runs: stalls,
      ingest_idle_pct: lowestIdle(...big.map((r) => r.idle)),
      fill_s: round(loaded.seconds),
      shutdown_s: round(shutdownS),
      retention,
    };
  } finally {
    clearInterval(sampler);
    await svc.stop();
  }
}
