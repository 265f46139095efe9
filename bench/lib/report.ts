// The results file (bench/results.json) and the Markdown table printed and pasted in README.md.

import type { FanoutResult, IngestResult } from '../scenarios/live.js';
import type { HistoryResult } from '../scenarios/history.js';
import type { RatioSpread, Repeated } from './reps.js';
import { round } from './stats.js';

type Ref<T> = T | null;
/** A result measured once (NATS) or over repetitions (svc, baseline, the Postgres rows: medians with their spread). */
type Measured<T> = Ref<T & Partial<Pick<Repeated<T>, 'reps' | 'spread'>>>;
/** svc / baseline per figure, from the interleaved repetitions. */
type Ratios<T> = Partial<Record<keyof T & string, RatioSpread>>;
type Paced = FanoutResult['paced'];
type Max = FanoutResult['max'];

export interface Results {
  date: string;
  machine: { cores: number; memory_gb: number; node: string; cpu?: string; loadavg_start: number; loadavg_end?: number };
  size: string;
  /** The sizes behind the numbers (clients, subscribers, stored messages); `reps`: repetitions per side. */
  params: { ingest_clients: number; subscribers: number; paced_rate: number; seconds: number; reps?: number };
  /** svc_postgres: the same ingest with one instance on a Postgres store. */
  ingest: {
    svc: Measured<IngestResult>;
    baseline: Measured<IngestResult>;
    nats: Measured<IngestResult>;
    svc_postgres?: Measured<IngestResult>;
    svc_vs_baseline?: Ratios<IngestResult>;
    note?: string;
  };
  /** svc_postgres_cross: publisher on one instance, the agents attached to a second on the same schema. */
  fanout_paced: {
    svc: Measured<Paced>;
    baseline: Measured<Paced>;
    nats: Measured<Paced>;
    svc_postgres_cross?: Measured<Paced>;
    svc_vs_baseline?: Ratios<Paced>;
    note?: string;
  };
  fanout_max: { svc: Measured<Max>; baseline: Measured<Max>; nats: Measured<Max>; svc_vs_baseline?: Ratios<Max>; note?: string };
  sse_fanout: {
    svc: Ref<{ deliveries_per_s: number | null; p50_ms: number | null; p99_ms: number | null; rate: number; complete: boolean }>;
    note?: string;
  };
  /**
   * The cost of receipts (docs/receipts.md): ingest and fan-out on svc as it ships (receipts on)
   * and with `server.receipts: false`, interleaved; `with_vs_without`: with / without per figure.
   */
  receipts?: {
    ingest: { with: Measured<IngestResult>; without: Measured<IngestResult>; with_vs_without?: Ratios<IngestResult> };
    fanout_max: { with: Measured<Max>; without: Measured<Max>; with_vs_without?: Ratios<Max> };
    note?: string;
  };
  history: { svc: Ref<HistoryResult>; note?: string };
  write_cost_ratio: { svc: number | null; note?: string };
  references: { nats_version?: string; nats_note?: string };
  notes: string[];
}

const fmt = (x: number | null | undefined, unit = ''): string => {
  if (x === null || x === undefined || Number.isNaN(x)) return '—';
  const v = Math.abs(x) >= 1000 ? Math.round(x).toLocaleString('en-US') : String(round(x));
  return `${v}${unit}`;
};
const ratio = (a: number | null | undefined, b: number | null | undefined): number | null =>
  a === null || a === undefined || b === null || b === undefined || b === 0 ? null : a / b;
const d2 = (x: number) => (Math.round(x * 100) / 100).toFixed(2);
const r2 = (x: number | null) => (x === null ? '—' : `${d2(x)}×`);

/** A median with, over several repetitions, its range: `6,378 (6,100–6,500)`. */
function med<T>(side: Measured<T> | undefined, key: keyof T & string, unit = ''): string {
  const value = fmt(side?.[key] as number | null | undefined, unit);
  const s = side?.spread?.[key];
  return s && (side?.reps ?? 1) > 1 ? `${value} (${fmt(s.min)}–${fmt(s.max)})` : value;
}

/** svc / baseline from the medians, with the range of the per-pair ratios: `0.57× (0.55–0.60)`. */
function rsp<T>(ratios: Ratios<T> | undefined, key: keyof T & string, svc: Measured<T> | undefined, base: Measured<T> | undefined): string {
  const r = ratios?.[key];
  if (!r) return r2(ratio(svc?.[key] as number | null | undefined, base?.[key] as number | null | undefined));
  const known = r.pairs.filter((x) => x !== null).length;
  return r.min !== null && r.max !== null && known > 1 ? `${r2(r.ratio)} (${d2(r.min)}–${d2(r.max)})` : r2(r.ratio);
}

type Verdict = 'met' | 'not met' | '—';
const check = (ok: boolean | null): Verdict => (ok === null ? '—' : ok ? 'met' : 'not met');
const atMost = (x: number | null | undefined, limit: number) => (x === null || x === undefined ? null : x <= limit);
const atLeast = (x: number | null | undefined, limit: number) => (x === null || x === undefined ? null : x >= limit);
const both = (a: boolean | null, b: boolean | null) => (a === null || b === null ? (a ?? b) : a && b);

/**
 * The Markdown results table (svc, the references, the ratios, each target and whether it is met).
 * svc and the baseline show the median of their repetitions and its range; targets use the medians.
 */
export function table(r: Results): string {
  const rows: string[][] = [];
  const i = r.ingest;
  const fp = r.fanout_paced;
  const fm = r.fanout_max;
  const h = r.history.svc;
  const add = (what: string, svc: string, base: string, nats: string, rb: string, rn: number | null, target: string, ok: Verdict) =>
    rows.push([what, svc, base, nats, rb, r2(rn), target, ok]);
  /** A row comparing svc with the baseline and NATS on one figure. */
  const cmp = <T>(
    what: string,
    s: { svc: Measured<T>; baseline: Measured<T>; nats: Measured<T>; svc_vs_baseline?: Ratios<T> },
    key: keyof T & string,
    unit: string,
    target = '',
    ok: Verdict = '—',
  ) => {
    const n = (x: Measured<T> | undefined) => x?.[key] as number | null | undefined;
    add(
      what,
      med(s.svc, key, unit),
      med(s.baseline, key, unit),
      fmt(n(s.nats), unit),
      rsp(s.svc_vs_baseline, key, s.svc, s.baseline),
      ratio(n(s.svc), n(s.nats)),
      target,
      ok,
    );
  };

  const ir = ratio(i.svc?.rate, i.baseline?.rate);
  const p = r.params;
  cmp(`ingest, messages/s (${p.ingest_clients} clients)`, i, 'rate', '', '≥ 0.5× baseline', check(ir === null ? null : ir >= 0.5));
  cmp('ingest, server CPU per message', i, 'cpu_us_per_msg', ' µs');
  cmp('ingest p50 latency', i, 'p50_ms', ' ms');
  cmp('ingest p99 latency', i, 'p99_ms', ' ms', '≤ 20 ms', check(atMost(i.svc?.p99_ms, 20)));
  cmp(`fan-out ${fmt(p.paced_rate)}/s to ${p.subscribers} agents, p50`, fp, 'p50_ms', ' ms', '≤ 5 ms', check(atMost(fp.svc?.p50_ms, 5)));
  cmp('fan-out paced, p99', fp, 'p99_ms', ' ms', '≤ 25 ms', check(atMost(fp.svc?.p99_ms, 25)));
  const cpuIdle = (x: Measured<Paced> | undefined) =>
    x?.cpu_us_per_msg != null ? `${med(x, 'cpu_us_per_msg', ' µs')}; ${med(x, 'host_idle_pct', '%')}` : '—';
  add('fan-out paced, server CPU per message; machine idle', cpuIdle(fp.svc), cpuIdle(fp.baseline), '', '', null, '', '—');
  const mb = ratio(fm.svc?.deliveries_per_s, fm.baseline?.deliveries_per_s);
  const mn = ratio(fm.svc?.deliveries_per_s, fm.nats?.deliveries_per_s);
  cmp(
    'fan-out unpaced, deliveries/s',
    fm,
    'deliveries_per_s',
    '',
    '≥ 0.6× baseline, ≥ NATS',
    check(both(mb === null ? null : mb >= 0.6, mn === null ? null : mn >= 1)),
  );
  cmp('fan-out unpaced, server CPU per delivery', fm, 'cpu_us_per_delivery', ' µs');
  const pgi = i.svc_postgres;
  const pgr = ratio(pgi?.rate, i.svc?.rate);
  add(
    'ingest on Postgres (one instance), messages/s; p99',
    pgi ? `${med(pgi, 'rate')}; ${med(pgi, 'p99_ms', ' ms')}` : '—',
    '',
    '',
    '—',
    null,
    '≥ 0.5× svc on sqlite',
    check(pgr === null ? null : pgr >= 0.5),
  );
  add(
    'ingest on Postgres, per message: svc CPU; database CPU; database transactions',
    pgi
      ? `${fmt(pgi.cpu_us_per_msg, ' µs')}; ${fmt(pgi.db_cpu_us_per_msg ?? null, ' µs')}; ${fmt(pgi.db_xacts_per_msg ?? null)} transactions`
      : '—',
    '',
    '',
    '—',
    null,
    '',
    '—',
  );
  const cross = fp.svc_postgres_cross;
  const cr = ratio(cross?.p99_ms, fp.svc?.p99_ms);
  add(
    'fan-out paced across two Postgres instances, p50 / p99',
    cross ? `${med(cross, 'p50_ms', ' ms')} / ${med(cross, 'p99_ms', ' ms')}${cross.complete ? '' : ' (incomplete)'}` : '—',
    '',
    '',
    '—',
    null,
    'p99 ≤ 2× svc on sqlite',
    check(cr === null ? null : cr <= 2 && cross!.complete),
  );
  add(
    '… CPU per message: subscribing instance; publishing instance; database (transactions); machine idle',
    cross
      ? `${med(cross, 'cpu_us_per_msg', ' µs')}; ${med(cross, 'publisher_cpu_us_per_msg', ' µs')}; ${med(cross, 'db_cpu_us_per_msg', ' µs')} (${med(cross, 'db_xacts_per_msg')}); ${med(cross, 'host_idle_pct', '%')}`
      : '—',
    '',
    '',
    '—',
    null,
    '',
    '—',
  );
  add(
    '… of which the send on the publishing instance (request to 2xx), p50 / p99',
    cross?.send_p50_ms != null ? `${med(cross, 'send_p50_ms', ' ms')} / ${med(cross, 'send_p99_ms', ' ms')}` : '—',
    '',
    '',
    '—',
    null,
    '',
    '—',
  );
  const rc = r.receipts;
  if (rc) {
    // svc column: with receipts; baseline column: the same svc with server.receipts: false; the ratio is with / without.
    const ri = rc.ingest;
    const rf = rc.fanout_max;
    const ir2 = ri.with_vs_without?.rate?.ratio ?? ratio(ri.with?.rate, ri.without?.rate);
    const fr2 = rf.with_vs_without?.deliveries_per_s?.ratio ?? ratio(rf.with?.deliveries_per_s, rf.without?.deliveries_per_s);
    add(
      'ingest with receipts (baseline column: without), messages/s; ratio with / without',
      med(ri.with, 'rate'),
      med(ri.without, 'rate'),
      '',
      rsp(ri.with_vs_without, 'rate', ri.with, ri.without),
      null,
      '≥ 0.9× without',
      check(ir2 === null ? null : ir2 >= 0.9),
    );
    add(
      '… server CPU per message',
      med(ri.with, 'cpu_us_per_msg', ' µs'),
      med(ri.without, 'cpu_us_per_msg', ' µs'),
      '',
      rsp(ri.with_vs_without, 'cpu_us_per_msg', ri.with, ri.without),
      null,
      '',
      '—',
    );
    add(
      `fan-out unpaced to ${p.subscribers} ACKing agents with receipts (baseline column: without), deliveries/s`,
      med(rf.with, 'deliveries_per_s'),
      med(rf.without, 'deliveries_per_s'),
      '',
      rsp(rf.with_vs_without, 'deliveries_per_s', rf.with, rf.without),
      null,
      '≥ 0.9× without',
      check(fr2 === null ? null : fr2 >= 0.9),
    );
    add(
      '… server CPU per delivery',
      med(rf.with, 'cpu_us_per_delivery', ' µs'),
      med(rf.without, 'cpu_us_per_delivery', ' µs'),
      '',
      rsp(rf.with_vs_without, 'cpu_us_per_delivery', rf.with, rf.without),
      null,
      '',
      '—',
    );
  }
  const sse = r.sse_fanout.svc;
  add(`SSE fan-out to ${p.subscribers} streams, deliveries/s`, fmt(sse?.deliveries_per_s), '', '', '—', null, '', '—');
  add('SSE fan-out paced, p50 / p99', sse ? `${fmt(sse.p50_ms, ' ms')} / ${fmt(sse.p99_ms, ' ms')}` : '—', '', '', '—', null, '', '—');
  add(`history page (limit 100), p50, ${fmt(h?.messages ?? null)} messages`, fmt(h?.p50_ms, ' ms'), '', '', '—', null, '', '—');
  add('history page p99', fmt(h?.p99_ms, ' ms'), '', '', '—', null, '≤ 5 ms', check(atMost(h?.p99_ms, 5)));
  add('search, a word in ~1% of messages (limit 20), p50', fmt(h?.search_p50_ms, ' ms'), '', '', '—', null, '', '—');
  add('search p99', fmt(h?.search_p99_ms, ' ms'), '', '', '—', null, '≤ 20 ms', check(atMost(h?.search_p99_ms, 20)));
  add('start-up on that store', fmt(h?.startup_s, ' s'), '', '', '—', null, '≤ 3 s', check(atMost(h?.startup_s, 3)));
  // The target is on the peak (a checkpoint included); the steady figure is shown beside it.
  const mem = h && h.rss_peak_mb !== null ? h.rss_peak_mb / h.db_mb : null;
  add(
    'peak resident memory (with a checkpoint) / database file (steady resident memory)',
    h ? `${fmt(h.rss_peak_mb, ' MB')} / ${fmt(h.db_mb, ' MB')} = ${r2(mem)} (${fmt(h.rss_mb, ' MB')})` : '—',
    '',
    '',
    '—',
    null,
    '≤ 1.5×',
    check(mem === null ? null : mem <= 1.5),
  );
  add(
    'graceful shutdown on that store, after the ingest below',
    fmt(h?.shutdown_s, ' s'),
    '',
    '',
    '—',
    null,
    '≤ 3 s',
    check(atMost(h?.shutdown_s, 3)),
  );
  add(
    'write cost: ingest on the big store / empty',
    r.write_cost_ratio.svc === null ? '—' : `${r2(r.write_cost_ratio.svc)} (${fmt(h?.ingest_rate)}/s)`,
    '',
    '',
    '—',
    null,
    '≥ 0.8',
    check(atLeast(r.write_cost_ratio.svc, 0.8)),
  );
  add(
    `longest event-loop stall of svc during that ingest, ${h?.checkpoints_during_ingest ?? 0} checkpoint(s) in it (longest request)`,
    h ? `${fmt(h.event_loop_max_ms, ' ms')} (${fmt(h.max_pause_ms, ' ms')})` : '—',
    '',
    '',
    '—',
    null,
    '≤ 50 ms',
    check(h && h.checkpoints_during_ingest > 0 ? atMost(h.event_loop_max_ms, 50) : null),
  );

  const header = ['scenario', 'svc', 'baseline', 'NATS', 'svc / baseline', 'svc / NATS', 'target', ''];
  const lines = [header, header.map(() => '---'), ...rows].map((cols) => `| ${cols.join(' | ')} |`);
  return lines.join('\n');
}

/** The heading line for README: date, size, machine, and how the svc and baseline figures were taken. */
export function heading(r: Results): string {
  const reps = r.params.reps ?? 1;
  const how =
    reps > 1
      ? ` svc and baseline: median (min–max) of ${reps} interleaved repetitions each, svc / baseline from the medians (range over the pairs); the Postgres rows: median (min–max) of ${reps} repetitions; the rest one run.`
      : '';
  return `Measured ${r.date.slice(0, 10)} (${r.size} run) on ${r.machine.cores} cores, ${r.machine.memory_gb} GB, Node ${r.machine.node}${r.machine.cpu ? `, ${r.machine.cpu}` : ''}${r.references.nats_version ? `; ${r.references.nats_version}` : ''}.${how}`;
}
