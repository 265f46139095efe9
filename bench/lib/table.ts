// The Markdown results table printed by the run and written into docs/performance.md: svc, the
// references, the ratios, each target with its verdict (met, missed, or saturated when the host
// had under 20% idle during a row whose load leaves it room by construction) and the host's idle
// share during the row.

import type { Max, Measured, Paced, Ratios, Results } from './report.js';
import { round } from './stats.js';
import { atLeast, atMost, both, lowestIdle, type Verdict, verdict } from './verdict.js';
import { pgFanoutShareRow, retentionRows, scaleWakeRows, searchLagRow, uploadRow } from './table-scale-wake.js';

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

/** The ratio of the medians where the section has it, else of the two figures. */
const rat = <T>(rs: Ratios<T> | undefined, key: keyof T & string, a: Measured<T> | undefined, b: Measured<T> | undefined) =>
  rs?.[key]?.ratio ?? ratio(a?.[key] as number | null | undefined, b?.[key] as number | null | undefined);

/** The host's idle share shown in a row: one figure, or the lowest of the sides it compares. */
const idleOf = (...xs: (number | null | undefined)[]) => lowestIdle(...xs);

/**
 * The Markdown results table. svc and the baseline show the median of their repetitions and its
 * range; targets use the medians. Closed-loop rows (ingest, unpaced fan-out) take all the CPU
 * there is by design: their idle share is shown, never used to mark them saturated.
 */
export function table(r: Results): string {
  const rows: string[][] = [];
  const i = r.ingest;
  const fp = r.fanout_paced;
  const fm = r.fanout_max;
  const h = r.history.svc;
  const p = r.params;
  const add = (
    what: string,
    svc: string,
    base = '',
    nats = '',
    rb = '—',
    rn: number | null = null,
    target = '',
    ok: Verdict = '—',
    idle: number | null = null,
  ) => rows.push([what, svc, base, nats, rb, r2(rn), target, fmt(idle, '%'), ok]);
  /** A row comparing svc with the baseline and NATS on one figure. */
  const cmp = <T>(
    what: string,
    s: { svc: Measured<T>; baseline: Measured<T>; nats: Measured<T>; svc_vs_baseline?: Ratios<T> },
    key: keyof T & string,
    unit: string,
    target = '',
    ok: Verdict = '—',
    idle: number | null = null,
  ) => {
    const n = (x: Measured<T> | undefined) => x?.[key] as number | null | undefined;
    const rb = rsp(s.svc_vs_baseline, key, s.svc, s.baseline);
    add(what, med(s.svc, key, unit), med(s.baseline, key, unit), fmt(n(s.nats), unit), rb, ratio(n(s.svc), n(s.nats)), target, ok, idle);
  };

  // Scenario 1: closed loop.
  const iIdle = idleOf(i.svc?.idle_pct, i.baseline?.idle_pct);
  const iv = (key: 'rate' | 'cpu_us_per_msg' | 'p99_ms') => rat(i.svc_vs_baseline, key, i.svc, i.baseline);
  cmp(`ingest, messages/s (${p.ingest_clients} clients)`, i, 'rate', '', '≥ 0.6× baseline', verdict(atLeast(iv('rate'), 0.6)), iIdle);
  cmp('ingest, server CPU per message', i, 'cpu_us_per_msg', ' µs', '≤ 1.6× baseline', verdict(atMost(iv('cpu_us_per_msg'), 1.6)), iIdle);
  cmp('ingest p50 latency', i, 'p50_ms', ' ms', '', '—', iIdle);
  cmp('ingest p99 latency', i, 'p99_ms', ' ms', '≤ 1.5× baseline', verdict(atMost(iv('p99_ms'), 1.5)), iIdle);
  rows.push(searchLagRow(r, iIdle));

  // Scenario 2, paced: the host must have had room for the verdict to mean anything.
  const fpIdle = idleOf(fp.svc?.idle_pct, fp.baseline?.idle_pct);
  const fanTo = `fan-out ${fmt(p.paced_rate)}/s to ${p.subscribers} agents`;
  cmp(`${fanTo}, p50`, fp, 'p50_ms', ' ms', '', '—', fpIdle);
  const fpr = rat(fp.svc_vs_baseline, 'p99_ms', fp.svc, fp.baseline);
  cmp('fan-out paced, p99', fp, 'p99_ms', ' ms', '≤ 1.0× baseline', verdict(atMost(fpr, 1.0), fpIdle), fpIdle);
  const cpuIdle = (x: Measured<Paced> | undefined) => (x?.cpu_us_per_msg != null ? med(x, 'cpu_us_per_msg', ' µs') : '—');
  add('fan-out paced, server CPU per message', cpuIdle(fp.svc), cpuIdle(fp.baseline), '', '—', null, '', '—', fpIdle);

  // Scenario 2, unpaced: closed loop.
  const fmIdle = idleOf(fm.svc?.idle_pct, fm.baseline?.idle_pct);
  const mb = rat(fm.svc_vs_baseline, 'deliveries_per_s', fm.svc, fm.baseline);
  const mn = ratio(fm.svc?.deliveries_per_s, fm.nats?.deliveries_per_s);
  const mv = verdict(both(atLeast(mb, 0.6), atLeast(mn, 1)));
  cmp('fan-out unpaced, deliveries/s', fm, 'deliveries_per_s', '', '≥ 0.6× baseline, ≥ NATS', mv, fmIdle);
  cmp('fan-out unpaced, server CPU per delivery', fm, 'cpu_us_per_delivery', ' µs', '', '—', fmIdle);

  // Scenario 3b: Postgres.
  const pgi = i.svc_postgres;
  const pgText = pgi ? `${med(pgi, 'rate')}; ${med(pgi, 'p99_ms', ' ms')}` : '—';
  const pgr = ratio(pgi?.rate, i.svc?.rate);
  add(
    'ingest on Postgres (one instance), messages/s; p99',
    pgText,
    '',
    '',
    '—',
    null,
    '≥ 1.0× svc on sqlite',
    verdict(atLeast(pgr, 1)),
    pgi?.idle_pct ?? null,
  );
  const pgCpu = pgi
    ? `${fmt(pgi.cpu_us_per_msg, ' µs')}; ${fmt(pgi.db_cpu_us_per_msg ?? null, ' µs')}; ${fmt(pgi.db_xacts_per_msg ?? null)} transactions`
    : '—';
  add('ingest on Postgres, per message: svc CPU; database CPU; database transactions', pgCpu);
  const cross = fp.svc_postgres_cross;
  const crossIdle = idleOf(cross?.idle_pct, fp.svc?.idle_pct);
  const cr = ratio(cross?.p99_ms, fp.svc?.p99_ms);
  add(
    'fan-out paced across two Postgres instances, p50 / p99',
    cross ? `${med(cross, 'p50_ms', ' ms')} / ${med(cross, 'p99_ms', ' ms')}${cross.complete ? '' : ' (incomplete)'}` : '—',
    '',
    '',
    '—',
    null,
    'p99 ≤ 1.5× svc on sqlite',
    verdict(cr === null ? null : cr <= 1.5 && cross!.complete, crossIdle),
    crossIdle,
  );
  add(
    '… CPU per message: subscribing instance; publishing instance; database (transactions)',
    cross
      ? `${med(cross, 'cpu_us_per_msg', ' µs')}; ${med(cross, 'publisher_cpu_us_per_msg', ' µs')}; ${med(cross, 'db_cpu_us_per_msg', ' µs')} (${med(cross, 'db_xacts_per_msg')})`
      : '—',
  );
  add(
    '… of which the send on the publishing instance (request to 2xx), p50 / p99',
    cross?.send_p50_ms != null ? `${med(cross, 'send_p50_ms', ' ms')} / ${med(cross, 'send_p99_ms', ' ms')}` : '—',
  );
  rows.push(pgFanoutShareRow(r, crossIdle));

  // Scenario 3c: receipts, closed loop. svc column: with receipts; baseline column: without.
  const rc = r.receipts;
  if (rc) {
    const ri = rc.ingest;
    const rf = rc.fanout_max;
    const riIdle = idleOf(ri.with?.idle_pct, ri.without?.idle_pct);
    const rfIdle = idleOf(rf.with?.idle_pct, rf.without?.idle_pct);
    add(
      'ingest with receipts (baseline column: without), messages/s; ratio with / without',
      med(ri.with, 'rate'),
      med(ri.without, 'rate'),
      '',
      rsp(ri.with_vs_without, 'rate', ri.with, ri.without),
      null,
      '≥ 0.9× without',
      verdict(atLeast(rat(ri.with_vs_without, 'rate', ri.with, ri.without), 0.9)),
      riIdle,
    );
    add(
      '… server CPU per message',
      med(ri.with, 'cpu_us_per_msg', ' µs'),
      med(ri.without, 'cpu_us_per_msg', ' µs'),
      '',
      rsp(ri.with_vs_without, 'cpu_us_per_msg', ri.with, ri.without),
      null,
      '≤ 1.1× without',
      verdict(atMost(rat(ri.with_vs_without, 'cpu_us_per_msg', ri.with, ri.without), 1.1)),
      riIdle,
    );
    add(
      `fan-out unpaced to ${p.subscribers} ACKing agents with receipts (baseline column: without), deliveries/s`,
      med(rf.with, 'deliveries_per_s'),
      med(rf.without, 'deliveries_per_s'),
      '',
      rsp(rf.with_vs_without, 'deliveries_per_s', rf.with, rf.without),
      null,
      '≥ 0.9× without',
      verdict(atLeast(rat(rf.with_vs_without, 'deliveries_per_s', rf.with, rf.without), 0.9)),
      rfIdle,
    );
    add(
      '… server CPU per delivery',
      med(rf.with as Measured<Max>, 'cpu_us_per_delivery', ' µs'),
      med(rf.without as Measured<Max>, 'cpu_us_per_delivery', ' µs'),
      '',
      rsp(rf.with_vs_without, 'cpu_us_per_delivery', rf.with, rf.without),
      null,
      '≤ 1.1× without',
      verdict(atMost(rat(rf.with_vs_without, 'cpu_us_per_delivery', rf.with, rf.without), 1.1)),
      rfIdle,
    );
    // What receipts keep, per 1,000 deliveries of a paced fan-out (no target: the figures show
    // whether the cost follows deliveries; docs/receipts.md).
    const kept = rc.per_1k_deliveries;
    if (kept) {
      add(
        `store bytes per 1,000 deliveries to ${p.subscribers} ACKing agents with receipts (baseline column: without)`,
        med(kept.with, 'store_bytes_per_1k', ' B'),
        med(kept.without, 'store_bytes_per_1k', ' B'),
        '',
        r2(ratio(kept.with?.store_bytes_per_1k, kept.without?.store_bytes_per_1k)),
      );
      add(
        '… resident memory per 1,000 deliveries',
        med(kept.with, 'rss_kib_per_1k', ' KiB'),
        med(kept.without, 'rss_kib_per_1k', ' KiB'),
        '',
        r2(ratio(kept.with?.rss_kib_per_1k, kept.without?.rss_kib_per_1k)),
      );
    }
  }

  const sse = r.sse_fanout.svc;
  add(`SSE fan-out to ${p.subscribers} streams, deliveries/s`, fmt(sse?.deliveries_per_s));
  add(
    'SSE fan-out paced, p50 / p99',
    sse ? `${fmt(sse.p50_ms, ' ms')} / ${fmt(sse.p99_ms, ' ms')}` : '—',
    '',
    '',
    '—',
    null,
    '',
    '—',
    sse?.idle_pct ?? null,
  );

  // Scenario 6: attach_10k. svc against the baseline's ws server with as many sockets.
  const a = r.attach_10k;
  if (a) {
    const as = a.svc;
    const ab = a.baseline;
    const aIdle = idleOf(as?.idle_pct, ab?.idle_pct);
    const n = as?.attachments ?? ab?.attachments ?? p.attachments;
    add(
      `attach storm: ${fmt(n ?? null)} attachments, each its own agent, to READY`,
      fmt(as?.attach_storm_s, ' s'),
      fmt(ab?.attach_storm_s, ' s'),
      '',
      r2(ratio(as?.attach_storm_s, ab?.attach_storm_s)),
    );
    const memR = ratio(as?.mem_kb_per_attachment, ab?.mem_kb_per_attachment);
    add(
      '… resident memory per attachment',
      fmt(as?.mem_kb_per_attachment, ' KB'),
      fmt(ab?.mem_kb_per_attachment, ' KB'),
      '',
      r2(memR),
      null,
      '≤ 1.25× baseline',
      verdict(atMost(memR, 1.25)),
    );
    const afterR = ratio(as?.mem_kb_per_attachment_after_broadcasts, ab?.mem_kb_per_attachment_after_broadcasts);
    add(
      '… the same after the broadcasts',
      fmt(as?.mem_kb_per_attachment_after_broadcasts, ' KB'),
      fmt(ab?.mem_kb_per_attachment_after_broadcasts, ' KB'),
      '',
      r2(afterR),
      null,
      '≤ 1.5× baseline',
      verdict(atMost(afterR, 1.5)),
    );
    const bR = ratio(as?.broadcast_p99_ms, ab?.broadcast_p99_ms);
    const complete = (as?.complete ?? false) && (ab?.complete ?? false);
    add(
      `… one room message to all ${fmt(n ?? null)}, p50 / p99`,
      as ? `${fmt(as.broadcast_p50_ms, ' ms')} / ${fmt(as.broadcast_p99_ms, ' ms')}${as.complete ? '' : ' (incomplete)'}` : '—',
      ab ? `${fmt(ab.broadcast_p50_ms, ' ms')} / ${fmt(ab.broadcast_p99_ms, ' ms')}${ab.complete ? '' : ' (incomplete)'}` : '—',
      '',
      r2(bR),
      null,
      'p99 ≤ 1.5× baseline',
      verdict(bR === null ? null : bR <= 1.5 && complete, aIdle),
      aIdle,
    );
  }

  // Scenarios 4-5: history at scale and write cost.
  const hIdle = h?.idle_pct ?? null;
  add(`history page (limit 100), p50, ${fmt(h?.messages ?? null)} messages`, fmt(h?.p50_ms, ' ms'), '', '', '—', null, '', '—', hIdle);
  add(
    `history page p99, ${fmt(h?.messages ?? null)} messages / ${fmt(h?.messages_small ?? null)}`,
    h ? `${fmt(h.p99_ms, ' ms')} / ${fmt(h.p99_ms_small, ' ms')} = ${r2(h.p99_ratio)}` : '—',
    '',
    '',
    '—',
    null,
    '≤ 1.5×',
    verdict(atMost(h?.p99_ratio, 1.5), hIdle),
    hIdle,
  );
  add('search, a word in ~1% of messages (limit 20), p50', fmt(h?.search_p50_ms, ' ms'), '', '', '—', null, '', '—', hIdle);
  add('search p99', fmt(h?.search_p99_ms, ' ms'), '', '', '—', null, '≤ 20 ms', verdict(atMost(h?.search_p99_ms, 20), hIdle), hIdle);
  add('start-up on that store', fmt(h?.startup_s, ' s'), '', '', '—', null, '≤ 3 s', verdict(atMost(h?.startup_s, 3)));
  // The target is on the peak (a checkpoint included); the steady figure is shown beside it.
  const mem = h && h.rss_peak_mb !== null ? h.rss_peak_mb / h.db_mb : null;
  add(
    'peak resident memory (with a checkpoint) / database file (steady resident memory)',
    h ? `${fmt(h.rss_peak_mb, ' MB')} / ${fmt(h.db_mb, ' MB')} = ${r2(mem)} (${fmt(h.rss_mb, ' MB')})` : '—',
    '',
    '',
    '—',
    null,
    '≤ 0.5×',
    verdict(atMost(mem, 0.5)),
  );
  add(
    'graceful shutdown on that store, after the ingest below',
    fmt(h?.shutdown_s, ' s'),
    '',
    '',
    '—',
    null,
    '≤ 3 s',
    verdict(atMost(h?.shutdown_s, 3)),
  );
  const wIdle = h?.ingest_idle_pct ?? null;
  /** The rounds behind a median of scenario 5, in the order they ran. */
  const runs = (xs: readonly (number | null)[]) => (xs.length > 1 ? `[${xs.map((x) => fmt(x)).join(', ')}]` : '');
  add(
    'write cost: ingest on the big store / on an empty one, both at a 16 MiB journal threshold',
    r.write_cost_ratio.svc === null || !h
      ? '—'
      : `${r2(r.write_cost_ratio.svc)} (${fmt(h.ingest_rate)}/s ${runs(h.ingest_rates)} against ${fmt(h.ingest_rate_empty)}/s ${runs(h.ingest_rates_empty)})`,
    '',
    '',
    '—',
    null,
    '≥ 0.95',
    verdict(atLeast(r.write_cost_ratio.svc, 0.95)),
    wIdle,
  );
  add(
    `longest event-loop stall of svc during that ingest, the worst round; checkpoints in each round: ${h?.checkpoints_runs.join(', ') ?? 0} (longest request of the first)`,
    h ? `${fmt(h.event_loop_max_ms, ' ms')} ${runs(h.event_loop_max_ms_runs)} (${fmt(h.max_pause_ms, ' ms')})` : '—',
    '',
    '',
    '—',
    null,
    '≤ 25 ms',
    verdict(h && h.checkpoints_during_ingest > 0 ? atMost(h.event_loop_max_ms, 25) : null),
    wIdle,
  );

  rows.push(...retentionRows(r, wIdle));
  rows.push(...scaleWakeRows(r), uploadRow(r));
  const header = ['scenario', 'svc', 'baseline', 'NATS', 'svc / baseline', 'svc / NATS', 'target', 'host idle', ''];
  const lines = [header, header.map(() => '---'), ...rows].map((cols) => `| ${cols.join(' | ')} |`);
  return lines.join('\n');
}

/** The verdicts of the rows with a target (for the run's summary line; '—': a target with no figure). */
export function verdicts(md: string): Record<Verdict, number> {
  const out: Record<Verdict, number> = { met: 0, missed: 0, saturated: 0, '—': 0 };
  for (const line of md.split('\n').slice(2)) {
    const cols = line.split('|').map((c) => c.trim());
    const [target, last] = [cols.at(-4), cols.at(-2) as Verdict | undefined];
    if (target && last && last in out) out[last]++;
  }
  return out;
}
