// Scenarios 1-3: ingest, fan-out paced and unpaced (attach / baseline WebSocket / NATS push), SSE.

import { cpuMs, hostTicks, idleMeter, treeCpuMs } from '../lib/procs.js';
import type { Sizes } from '../lib/sizes.js';
import { nowMs, quantile, round } from '../lib/stats.js';
import type { Target } from '../lib/targets.js';
import type { SubscriberKind } from '../subscribers.js';
import type { SubscriberPool } from '../lib/pool.js';
import { isSaturated } from '../lib/verdict.js';
import { settleMs, xactWindow } from '../lib/pg-xacts.js';

export interface IngestResult {
  rate: number;
  p50_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
  errors: number;
  /** Server CPU time per accepted message (µs): robust to other load on the machine. */
  cpu_us_per_msg: number | null;
  /** The database server's CPU time per accepted message (µs), when the target has one. */
  db_cpu_us_per_msg?: number | null;
  /** Database transactions (each statement outside BEGIN is one) per accepted message, roughly. */
  db_xacts_per_msg?: number | null;
  /** The host's idle share during the run (%): closed-loop load takes what there is, so this says how much was left. */
  idle_pct?: number | null;
  /**
   * How far search was behind the acknowledged sends (the age of the oldest one it had not taken
   * in, read from /metrics every LAG_SAMPLE_MS): p99 and the longest of the samples, in ms.
   */
  search_index_lag_p99_ms?: number | null;
  search_index_lag_max_ms?: number | null;
}

/** How often the ingest reads the search index's lag (a /metrics scrape each: a little of svc's CPU). */
const LAG_SAMPLE_MS = 100;

/** Samples `read` every LAG_SAMPLE_MS until the returned stop is called; gives the p99 and the max. */
function lagSampler(read: () => Promise<number | null>): () => Promise<{ p99: number | null; max: number | null }> {
  const got: number[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const v = await read();
      if (v !== null && Number.isFinite(v)) got.push(v);
      await new Promise((r) => setTimeout(r, LAG_SAMPLE_MS));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    if (got.length === 0) return { p99: null, max: null };
    got.sort((a, b) => a - b);
    return { p99: round(quantile(got, 0.99)), max: round(got[got.length - 1]!) };
  };
}

/** Scenario 1: closed-loop ingest. */
export async function runIngest(t: Target, s: Sizes, note: (m: string) => void): Promise<IngestResult> {
  // A warm-up outside the numbers, so JIT compilation is not counted against whoever runs first.
  await t.ingest(s.ingest.clients, Math.min(2, s.ingest.seconds / 4));
  const xw = t.dbTransactions ? await xactWindow(t.dbTransactions, settleMs(s)) : undefined;
  const cpu0 = cpuMs(t.pid);
  const db0 = treeCpuMs(t.dbPid);
  const idle = idleMeter();
  const lag = t.searchLagMs ? lagSampler(t.searchLagMs) : undefined;
  const r = await t.ingest(s.ingest.clients, s.ingest.seconds);
  const idlePct = idle();
  const lagMs = await lag?.();
  const cpu1 = cpuMs(t.pid);
  const db1 = treeCpuMs(t.dbPid);
  const xacts = (await xw?.stop())?.xacts;
  if (r.errors > 0) note(`${t.name} ingest: ${r.errors} failed requests (first: ${r.firstError})`);
  const l = r.latency.summary();
  const cpu = cpu0 !== null && cpu1 !== null && r.ok > 0 ? round(((cpu1 - cpu0) * 1000) / r.ok) : null;
  const out: IngestResult = {
    rate: Math.round(r.rate),
    p50_ms: l.p50_ms,
    p99_ms: l.p99_ms,
    max_ms: l.max_ms,
    errors: r.errors,
    cpu_us_per_msg: cpu,
    idle_pct: idlePct,
  };
  if (lagMs) {
    out.search_index_lag_p99_ms = lagMs.p99;
    out.search_index_lag_max_ms = lagMs.max;
  }
  if (xacts != null && r.ok > 0) out.db_xacts_per_msg = round(xacts / r.ok);
  if (t.dbPid !== undefined) out.db_cpu_us_per_msg = db0 !== null && db1 !== null && r.ok > 0 ? round(((db1 - db0) * 1000) / r.ok) : null;
  return out;
}

export interface PacedResult {
  rate: number;
  /** Publish to delivery, every subscriber's every message. */
  p50_ms: number | null;
  p99_ms: number | null;
  /** Publish to the publisher's 2xx (the write alone), where the target reports it. */
  send_p50_ms?: number | null;
  send_p99_ms?: number | null;
  /** Every subscriber got every message. */
  complete: boolean;
  delivered: number;
  expected: number;
  /** CPU per published message (µs) of the server the subscribers follow, and of the others where the target has them. */
  cpu_us_per_msg?: number | null;
  publisher_cpu_us_per_msg?: number | null;
  db_cpu_us_per_msg?: number | null;
  db_xacts_per_msg?: number | null;
  /** Share of the machine's CPU time left idle while publishing (%): how loaded the host was. */
  host_idle_pct?: number | null;
  /** Share taken by the hypervisor for other guests (%), on a virtual machine. */
  host_steal_pct?: number | null;
  /** The host's idle share during the row (%; the same figure as host_idle_pct), and whether it was under 20%. */
  idle_pct?: number | null;
  saturated?: boolean;
}

export interface MaxResult {
  deliveries_per_s: number | null;
  /** Server CPU time per delivery (µs) in the run that counted. */
  cpu_us_per_delivery: number | null;
  /** Messages per second published in the run that counted. */
  publish_rate: number;
  complete: boolean;
  attempts: number;
  /** The host's idle share during the run that counted (%). */
  idle_pct?: number | null;
}

export interface FanoutResult {
  paced: PacedResult;
  max: MaxResult;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Scenarios 2/3: `n` subscribers of `kind`, paced publishing, then the highest complete rate. */
export async function runFanout(t: Target, kind: SubscriberKind, s: Sizes, note: (m: string) => void): Promise<FanoutResult> {
  const pool = await t.subscribe(kind, s.fanout.subscribers);
  const label = `${t.name} ${kind}`;
  try {
    const paced = await pacedPhase(t, pool, s, label, note);
    const max = await maxPhase(t, pool, s, label, note);
    return { paced, max };
  } finally {
    await pool.close();
  }
}

/** Scenario 2's unpaced phase alone, after a warm-up (the paced rate of a run is a share of the baseline's). */
export async function runUnpaced(t: Target, kind: SubscriberKind, s: Sizes, note: (m: string) => void): Promise<MaxResult> {
  const pool = await t.subscribe(kind, s.fanout.subscribers);
  const label = `${t.name} ${kind}`;
  try {
    await warmUp(t, pool, s);
    return await maxPhase(t, pool, s, label, note);
  } finally {
    await pool.close();
  }
}

/** As fast as the publishers are answered; if some subscriber missed messages, retry paced below what was delivered. */
async function maxPhase(t: Target, pool: SubscriberPool, s: Sizes, label: string, note: (m: string) => void): Promise<MaxResult> {
  const n = s.fanout.subscribers;
  let rate = 0;
  let max: MaxResult = { deliveries_per_s: null, cpu_us_per_delivery: null, publish_rate: 0, complete: false, attempts: 0 };
  for (let attempt = 1; attempt <= 3; attempt++) {
    const phase = `m${attempt}`;
    await pool.phase(phase, false);
    const t0 = nowMs();
    const c0 = cpuMs(t.pid);
    const idle = idleMeter();
    const p = await t.publish({ rate, seconds: s.fanout.maxSeconds, inflight: s.fanout.inflight }, (i, at) => `b ${phase} ${i} ${at}`);
    if (p.errors > 0) note(`${label} max attempt ${attempt}: ${p.errors} failed publishes (first: ${p.firstError})`);
    const r = await pool.waitFor(p.ok, 30_000);
    const got = sum(r.received);
    const c1 = cpuMs(t.pid);
    const cpu = c0 !== null && c1 !== null && got > 0 ? round(((c1 - c0) * 1000) / got) : null;
    const seconds = Math.max(p.seconds, (r.lastAt - t0) / 1000);
    max = {
      deliveries_per_s: Math.round(got / seconds),
      cpu_us_per_delivery: cpu,
      publish_rate: Math.round(p.rate),
      complete: r.complete,
      attempts: attempt,
      idle_pct: idle(),
    };
    if (r.complete) break;
    note(`${label} max attempt ${attempt} (${rate ? `${Math.round(rate)}/s` : 'unpaced'}): ${got} of ${p.ok * n} deliveries arrived`);
    rate = (0.7 * got) / n / seconds;
  }
  return max;
}

/** A short publish outside the numbers, so connection set-up and JIT are not in them. */
async function warmUp(t: Target, pool: SubscriberPool, s: Sizes): Promise<void> {
  await pool.phase('w', false);
  const w = await t.publish({ rate: s.fanout.rate, seconds: Math.min(1, s.fanout.seconds / 2), inflight: 16 }, (i, at) => `b w ${i} ${at}`);
  await pool.waitFor(w.ok, 5000);
}

/** The warm-up and the paced phase of a fan-out: publishing at the paced rate, latency per delivery. */
async function pacedPhase(t: Target, pool: SubscriberPool, s: Sizes, label: string, note: (m: string) => void): Promise<PacedResult> {
  const n = s.fanout.subscribers;
  await warmUp(t, pool, s);
  const xw = t.dbTransactions ? await xactWindow(t.dbTransactions, settleMs(s)) : undefined;

  await pool.phase('p');
  const before = usage(t);
  const pub = await t.publish({ rate: s.fanout.rate, seconds: s.fanout.seconds, inflight: 16 }, (i, at) => `b p ${i} ${at}`);
  const after = usage(t);
  if (pub.errors > 0) note(`${label} paced: ${pub.errors} failed publishes (first: ${pub.firstError})`);
  const rep = await pool.waitFor(pub.ok, 15_000);
  for (const e of rep.errors) note(`${label}: ${e}`);
  const delivered = sum(rep.received);
  if (!rep.complete) note(`${label} paced: ${delivered} of ${pub.ok * n} deliveries arrived`);
  const send = pub.latency?.summary();
  const xacts = (await xw?.stop())?.xacts;
  return {
    rate: Math.round(pub.rate),
    p50_ms: rep.p50_ms,
    p99_ms: rep.p99_ms,
    ...(send ? { send_p50_ms: send.p50_ms, send_p99_ms: send.p99_ms } : {}),
    complete: rep.complete,
    delivered,
    expected: pub.ok * n,
    ...perMessage(t, before, after, pub.ok),
    ...(xw ? { db_xacts_per_msg: xacts != null && pub.ok > 0 ? round(xacts / pub.ok) : null } : {}),
  };
}

interface Usage {
  cpu: number | null;
  pubCpu: number | null;
  dbCpu: number | null;
  host: { idle: number; steal: number; all: number } | null;
}

function usage(t: Target): Usage {
  return {
    cpu: cpuMs(t.pid),
    pubCpu: cpuMs(t.pubPid),
    dbCpu: treeCpuMs(t.dbPid),
    host: hostTicks(),
  };
}

/** The CPU fields of a paced result: each process's CPU per published message, and the host's idle share. */
function perMessage(t: Target, a: Usage, b: Usage, ok: number): Partial<PacedResult> {
  const per = (x: number | null, y: number | null, scale = 1000) =>
    x !== null && y !== null && ok > 0 ? round(((y - x) * scale) / ok) : null;
  const out: Partial<PacedResult> = { cpu_us_per_msg: per(a.cpu, b.cpu) };
  if (t.pubPid !== undefined) out.publisher_cpu_us_per_msg = per(a.pubCpu, b.pubCpu);
  if (t.dbPid !== undefined) out.db_cpu_us_per_msg = per(a.dbCpu, b.dbCpu);
  const share = (k: 'idle' | 'steal') =>
    a.host && b.host && b.host.all > a.host.all ? round((100 * (b.host[k] - a.host[k])) / (b.host.all - a.host.all)) : null;
  out.host_idle_pct = share('idle');
  out.host_steal_pct = share('steal');
  out.idle_pct = out.host_idle_pct;
  out.saturated = isSaturated(out.idle_pct) ?? false;
  return out;
}

/** Scenario 2 paced only (the cross-instance row: subscribers on one instance, the publisher on another). */
export async function runPaced(t: Target, kind: SubscriberKind, s: Sizes, note: (m: string) => void): Promise<PacedResult> {
  const pool = await t.subscribe(kind, s.fanout.subscribers);
  try {
    return await pacedPhase(t, pool, s, `${t.name} ${kind}`, note);
  } finally {
    await pool.close();
  }
}

export { round };
