// The table's rows for the instance curve (scenarios/scaling.ts), the wake latencies
// (scenarios/wake.ts), the uploads (scenarios/files.ts), the search index's lag, the retention
// round (scenarios/retention.ts) and the Postgres fan-out's own cost (scenarios/postgres.ts), in the columns of lib/table.ts: scenario, svc, baseline, NATS,
// svc / baseline, svc / NATS, target, host idle, verdict.

import type { Results } from './report.js';
import { round } from './stats.js';
import { atLeast, atMost, both, lowestIdle, type Verdict, verdict } from './verdict.js';
import { SCALING_COUNTS } from '../scenarios/scaling.js';
import { WAKE_TARGET } from '../scenarios/wake.js';

const fmt = (x: number | null | undefined, unit = ''): string =>
  x === null || x === undefined || Number.isNaN(x)
    ? '—'
    : `${Math.abs(x) >= 1000 ? Math.round(x).toLocaleString('en-US') : String(round(x))}${unit}`;
const times = (x: number | null) => (x === null ? '—' : `${(Math.round(x * 100) / 100).toFixed(2)}×`);

/** A wake path's p99 over the baseline's frame p99; null when either is missing. */
export function wakeRatio(p99: number | null | undefined, baselineP99: number | null | undefined): number | null {
  return p99 == null || baselineP99 == null || baselineP99 <= 0 ? null : p99 / baselineP99;
}

/** The verdict of a wake row: p99 at most WAKE_TARGET times the baseline's, saturated under 20% idle. */
export function wakeVerdict(p99: number | null | undefined, baselineP99: number | null | undefined, idlePct: number | null): Verdict {
  return verdict(atMost(wakeRatio(p99, baselineP99), WAKE_TARGET), idlePct);
}

/** The rows (empty when neither scenario ran). */
export function scaleWakeRows(r: Results): string[][] {
  const rows: string[][] = [];
  const row = (what: string, svc: string, base = '', ratio = '—', target = '', idle: number | null = null, ok: Verdict = '—') =>
    rows.push([what, svc, base, '', ratio, '—', target, fmt(idle, '%'), ok]);

  const sc = r.scaling;
  if (sc) {
    for (const n of SCALING_COUNTS) {
      const x = sc[`instances_${n}`];
      row(
        `${n} instance${n > 1 ? 's' : ''} on one Postgres, paced fan-out ${fmt(x?.rate ?? r.params.paced_rate)}/s to ${fmt(x?.agents ?? r.params.subscribers)} agents: deliveries/s; per message: CPU of each instance; database CPU (transactions); at rest: database transactions/s`,
        x
          ? `${fmt(x.deliveries_per_s)}${x.complete ? '' : ' (incomplete)'}; ${fmt(x.instance_cpu_us_per_msg, ' µs')}; ${fmt(x.db_cpu_us_per_msg, ' µs')} (${fmt(x.db_xacts_per_msg)}); ${fmt(x.at_rest?.db_xacts_per_s)}/s`
          : '—',
        '',
        '—',
        '',
        x?.idle_pct ?? null,
      );
    }
  }

  const w = r.wake;
  if (w) {
    const idle = lowestIdle(w.idle_pct, w.baseline_idle_pct);
    const base = w.baseline ? `${fmt(w.baseline.p50_ms, ' ms')} / ${fmt(w.baseline.p99_ms, ' ms')}` : '—';
    for (const [what, f] of [
      ["wake: a mention's send to `svc agent run`'s command starting, p50 / p99 (baseline: its frames at the same load)", w.agent_run],
      ["wake: a mention's send to an MCP `wait_for_messages` returning, p50 / p99 (baseline: the same)", w.mcp_wait],
    ] as const) {
      row(
        `${what}, under fan-out ${fmt(w.rate ?? null)}/s to ${fmt(w.agents ?? null)} agents`,
        f ? `${fmt(f.p50_ms, ' ms')} / ${fmt(f.p99_ms, ' ms')}` : '—',
        base,
        times(wakeRatio(f?.p99_ms, w.baseline?.p99_ms)),
        `p99 ≤ ${WAKE_TARGET}× baseline`,
        idle,
        wakeVerdict(f?.p99_ms, w.baseline?.p99_ms, idle),
      );
    }
  }
  return rows;
}

/** The upload row: a file's bytes stay off the message path. */
export function uploadRow(r: Results): string[] {
  const f = r.files && 'uploads' in r.files ? r.files : undefined;
  return [
    `uploads of ${f ? fmt(f.upload_bytes / 1048576) : '—'} MiB, ${f?.uploaders ?? '—'} at a time, MiB/s; ingest p99 with them / alone`,
    f ? `${fmt(f.upload_mib_per_s)} MiB/s; ${fmt(f.ingest_p99_ms_with_uploads, ' ms')} / ${fmt(f.ingest_p99_ms_alone, ' ms')}` : '—',
    '',
    '',
    '—',
    '—',
    '',
    '—',
    '—',
  ];
}

/** How far search is behind the acknowledged sends under the full ingest (sampled from /metrics). */
export function searchLagRow(r: Results, idle: number | null): string[] {
  const lag = r.search;
  return [
    'search index lag under the full ingest, p99 (longest sample)',
    `${fmt(lag?.index_lag_p99_ms, ' ms')} (${fmt(lag?.index_lag_max_ms, ' ms')})`,
    '',
    '',
    '—',
    '—',
    '≤ 1000 ms',
    fmt(idle, '%'),
    verdict(atMost(lag?.index_lag_p99_ms, 1000)),
  ];
}

/** The retention round's rows: the purge beside the big-store rounds without it (`idle`: theirs). */
export function retentionRows(r: Results, idle: number | null): string[][] {
  const h = r.history.svc;
  const ret = h?.retention ?? null;
  const row = (what: string, value: string, target: string, ok: Verdict) => [what, value, '', '', '—', '—', target, fmt(idle, '%'), ok];
  return [
    row(
      `retention: ${fmt(ret?.expired)} expired messages of the big store purged while the same ingest runs (ingest rate against the rounds without; the purge's length)`,
      ret ? `${fmt(ret.ingest_rate)}/s against ${fmt(h?.ingest_rate)}/s; ${fmt(ret.purged)} purged in ${fmt(ret.purge_s, ' s')}` : '—',
      'all purged',
      verdict(ret ? atLeast(ret.purged, ret.expired) : null),
    ),
    row(
      "the purge's writes: how long each held the event loop (svc_retention_write_seconds), the stall the purge causes",
      ret ? `${fmt(ret.writes_over_25ms)} of ${fmt(ret.writes)} over 25 ms; all within ${fmt(ret.write_max_bound_ms, ' ms')}` : '—',
      'none over 25 ms',
      verdict(ret ? atMost(ret.writes_over_25ms, 0) : null),
    ),
    row(
      'longest event-loop stall of svc during that purge and ingest (the ingest alone: the stall row above)',
      ret ? fmt(ret.event_loop_max_ms, ' ms') : '—',
      '≤ 25 ms',
      verdict(ret ? atMost(ret.event_loop_max_ms, 25) : null),
    ),
  ];
}

/**
 * What the fan-out itself costs the database per message across two instances (#43 part 4): the
 * paced row to every agent less the same with one agent attached (the send's own commit is in both).
 */
export function pgFanoutShareRow(r: Results, idle: number | null): string[] {
  const all = r.fanout_paced.svc_postgres_cross;
  const one = r.fanout_paced.svc_postgres_cross_one;
  const less = (a: number | null | undefined, b: number | null | undefined) => (a == null || b == null ? null : round(a - b));
  const xacts = less(all?.db_xacts_per_msg, one?.db_xacts_per_msg);
  const cpu = less(all?.db_cpu_us_per_msg, one?.db_cpu_us_per_msg);
  return [
    `… the fan-out's own database cost per message (${fmt(r.params.subscribers)} agents less 1): transactions; CPU`,
    all && one
      ? `${fmt(xacts)} (${fmt(all.db_xacts_per_msg)} − ${fmt(one.db_xacts_per_msg)}); ${fmt(cpu, ' µs')} (${fmt(all.db_cpu_us_per_msg)} − ${fmt(one.db_cpu_us_per_msg)})`
      : '—',
    '',
    '',
    '—',
    '—',
    '≤ 0.2; ≤ 60 µs',
    fmt(idle, '%'),
    verdict(both(atMost(xacts, 0.2), atMost(cpu, 60)), idle),
  ];
}
