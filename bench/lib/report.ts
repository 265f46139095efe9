// The results file (bench/results.json) and the Markdown table printed and pasted in README.md.

import type { FanoutResult, IngestResult } from '../scenarios/live.js';
import type { HistoryResult } from '../scenarios/history.js';
import { round } from './stats.js';

type Ref<T> = T | null;

export interface Results {
  date: string;
  machine: { cores: number; memory_gb: number; node: string; cpu?: string; loadavg_start: number; loadavg_end?: number };
  size: string;
  /** The sizes behind the numbers (clients, subscribers, stored messages). */
  params: { ingest_clients: number; subscribers: number; paced_rate: number; seconds: number };
  /** svc_postgres: the same ingest with one instance on a Postgres store. */
  ingest: { svc: Ref<IngestResult>; baseline: Ref<IngestResult>; nats: Ref<IngestResult>; svc_postgres?: Ref<IngestResult>; note?: string };
  /** svc_postgres_cross: publisher on one instance, the agents attached to a second on the same schema. */
  fanout_paced: { svc: Ref<FanoutResult['paced']>; baseline: Ref<FanoutResult['paced']>; nats: Ref<FanoutResult['paced']>; svc_postgres_cross?: Ref<FanoutResult['paced']>; note?: string };
  fanout_max: { svc: Ref<FanoutResult['max']>; baseline: Ref<FanoutResult['max']>; nats: Ref<FanoutResult['max']>; note?: string };
  sse_fanout: { svc: Ref<{ deliveries_per_s: number | null; p50_ms: number | null; p99_ms: number | null; rate: number; complete: boolean }>; note?: string };
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
const r2 = (x: number | null) => (x === null ? '—' : `${(Math.round(x * 100) / 100).toFixed(2)}×`);

type Verdict = 'met' | 'not met' | '—';
const check = (ok: boolean | null): Verdict => (ok === null ? '—' : ok ? 'met' : 'not met');
const atMost = (x: number | null | undefined, limit: number) => (x === null || x === undefined ? null : x <= limit);
const atLeast = (x: number | null | undefined, limit: number) => (x === null || x === undefined ? null : x >= limit);
const both = (a: boolean | null, b: boolean | null) => (a === null || b === null ? (a ?? b) : a && b);

/** The Markdown results table (svc, the references, the ratios, each target and whether it is met). */
export function table(r: Results): string {
  const rows: string[][] = [];
  const i = r.ingest;
  const fp = r.fanout_paced;
  const fm = r.fanout_max;
  const h = r.history.svc;
  const add = (what: string, svc: string, base: string, nats: string, rb: number | null, rn: number | null, target: string, ok: Verdict) =>
    rows.push([what, svc, base, nats, r2(rb), r2(rn), target, ok]);

  const ir = ratio(i.svc?.rate, i.baseline?.rate);
  const p = r.params;
  add(`ingest, messages/s (${p.ingest_clients} clients)`, fmt(i.svc?.rate), fmt(i.baseline?.rate), fmt(i.nats?.rate), ir, ratio(i.svc?.rate, i.nats?.rate), '≥ 0.5× baseline', check(ir === null ? null : ir >= 0.5));
  add('ingest, server CPU per message', fmt(i.svc?.cpu_us_per_msg, ' µs'), fmt(i.baseline?.cpu_us_per_msg, ' µs'), fmt(i.nats?.cpu_us_per_msg, ' µs'), ratio(i.svc?.cpu_us_per_msg, i.baseline?.cpu_us_per_msg), ratio(i.svc?.cpu_us_per_msg, i.nats?.cpu_us_per_msg), '', '—');
  add('ingest p50 latency', fmt(i.svc?.p50_ms, ' ms'), fmt(i.baseline?.p50_ms, ' ms'), fmt(i.nats?.p50_ms, ' ms'), ratio(i.svc?.p50_ms, i.baseline?.p50_ms), ratio(i.svc?.p50_ms, i.nats?.p50_ms), '', '—');
  add('ingest p99 latency', fmt(i.svc?.p99_ms, ' ms'), fmt(i.baseline?.p99_ms, ' ms'), fmt(i.nats?.p99_ms, ' ms'), ratio(i.svc?.p99_ms, i.baseline?.p99_ms), ratio(i.svc?.p99_ms, i.nats?.p99_ms), '≤ 20 ms', check(atMost(i.svc?.p99_ms, 20)));
  add(`fan-out ${fmt(p.paced_rate)}/s to ${p.subscribers} agents, p50`, fmt(fp.svc?.p50_ms, ' ms'), fmt(fp.baseline?.p50_ms, ' ms'), fmt(fp.nats?.p50_ms, ' ms'), ratio(fp.svc?.p50_ms, fp.baseline?.p50_ms), ratio(fp.svc?.p50_ms, fp.nats?.p50_ms), '≤ 5 ms', check(atMost(fp.svc?.p50_ms, 5)));
  add('fan-out paced, p99', fmt(fp.svc?.p99_ms, ' ms'), fmt(fp.baseline?.p99_ms, ' ms'), fmt(fp.nats?.p99_ms, ' ms'), ratio(fp.svc?.p99_ms, fp.baseline?.p99_ms), ratio(fp.svc?.p99_ms, fp.nats?.p99_ms), '≤ 25 ms', check(atMost(fp.svc?.p99_ms, 25)));
  const mb = ratio(fm.svc?.deliveries_per_s, fm.baseline?.deliveries_per_s);
  const mn = ratio(fm.svc?.deliveries_per_s, fm.nats?.deliveries_per_s);
  add(
    'fan-out unpaced, deliveries/s',
    fmt(fm.svc?.deliveries_per_s),
    fmt(fm.baseline?.deliveries_per_s),
    fmt(fm.nats?.deliveries_per_s),
    mb,
    mn,
    '≥ 0.6× baseline, ≥ NATS',
    check(both(mb === null ? null : mb >= 0.6, mn === null ? null : mn >= 1)),
  );
  add('fan-out unpaced, server CPU per delivery', fmt(fm.svc?.cpu_us_per_delivery, ' µs'), fmt(fm.baseline?.cpu_us_per_delivery, ' µs'), fmt(fm.nats?.cpu_us_per_delivery, ' µs'), ratio(fm.svc?.cpu_us_per_delivery, fm.baseline?.cpu_us_per_delivery), ratio(fm.svc?.cpu_us_per_delivery, fm.nats?.cpu_us_per_delivery), '', '—');
  const pgi = i.svc_postgres;
  const pgr = ratio(pgi?.rate, i.svc?.rate);
  add('ingest on Postgres (one instance), messages/s; p99', pgi ? `${fmt(pgi.rate)}; ${fmt(pgi.p99_ms, ' ms')}` : '—', '', '', null, null, '≥ 0.5× svc on sqlite', check(pgr === null ? null : pgr >= 0.5));
  const cross = fp.svc_postgres_cross;
  const cr = ratio(cross?.p99_ms, fp.svc?.p99_ms);
  add('fan-out paced across two Postgres instances, p50 / p99', cross ? `${fmt(cross.p50_ms, ' ms')} / ${fmt(cross.p99_ms, ' ms')}${cross.complete ? '' : ' (incomplete)'}` : '—', '', '', null, null, 'p99 ≤ 2× svc on sqlite', check(cr === null ? null : cr <= 2 && cross!.complete));
  const sse = r.sse_fanout.svc;
  add(`SSE fan-out to ${p.subscribers} streams, deliveries/s`, fmt(sse?.deliveries_per_s), '', '', null, null, '', '—');
  add('SSE fan-out paced, p50 / p99', sse ? `${fmt(sse.p50_ms, ' ms')} / ${fmt(sse.p99_ms, ' ms')}` : '—', '', '', null, null, '', '—');
  add(`history page (limit 100), p50, ${fmt(h?.messages ?? null)} messages`, fmt(h?.p50_ms, ' ms'), '', '', null, null, '', '—');
  add('history page p99', fmt(h?.p99_ms, ' ms'), '', '', null, null, '≤ 5 ms', check(atMost(h?.p99_ms, 5)));
  add('search, a word in ~1% of messages (limit 20), p50', fmt(h?.search_p50_ms, ' ms'), '', '', null, null, '', '—');
  add('search p99', fmt(h?.search_p99_ms, ' ms'), '', '', null, null, '≤ 20 ms', check(atMost(h?.search_p99_ms, 20)));
  add('start-up on that store', fmt(h?.startup_s, ' s'), '', '', null, null, '≤ 3 s', check(atMost(h?.startup_s, 3)));
  const mem = h && h.rss_mb !== null ? h.rss_mb / h.db_mb : null;
  add(
    'resident memory / database file (peak with a checkpoint)',
    h ? `${fmt(h.rss_mb, ' MB')} / ${fmt(h.db_mb, ' MB')} = ${r2(mem)} (${fmt(h.rss_peak_mb, ' MB')})` : '—',
    '',
    '',
    null,
    null,
    '≤ 1.5×',
    check(mem === null ? null : mem <= 1.5),
  );
  add('write cost: ingest on the big store / empty', r.write_cost_ratio.svc === null ? '—' : `${r2(r.write_cost_ratio.svc)} (${fmt(h?.ingest_rate)}/s)`, '', '', null, null, '≥ 0.8', check(atLeast(r.write_cost_ratio.svc, 0.8)));
  add(
    `longest event-loop stall of svc during that ingest, ${h?.checkpoints_during_ingest ?? 0} checkpoint(s) in it (longest request)`,
    h ? `${fmt(h.event_loop_max_ms, ' ms')} (${fmt(h.max_pause_ms, ' ms')})` : '—',
    '',
    '',
    null,
    null,
    '≤ 50 ms',
    check(h && h.checkpoints_during_ingest > 0 ? atMost(h.event_loop_max_ms, 50) : null),
  );

  const header = ['scenario', 'svc', 'baseline', 'NATS', 'svc / baseline', 'svc / NATS', 'target', ''];
  const lines = [header, header.map(() => '---'), ...rows].map((cols) => `| ${cols.join(' | ')} |`);
  return lines.join('\n');
}

/** The heading line for README: date, size and machine. */
export function heading(r: Results): string {
  return `Measured ${r.date.slice(0, 10)} (${r.size} run) on ${r.machine.cores} cores, ${r.machine.memory_gb} GB, Node ${r.machine.node}${r.machine.cpu ? `, ${r.machine.cpu}` : ''}${r.references.nats_version ? `; ${r.references.nats_version}` : ''}.`;
}
