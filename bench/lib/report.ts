// The results file's shape (bench/results.json) and the heading of the table (lib/table.ts).

import type { FanoutResult, IngestResult } from '../scenarios/live.js';
import type { AttachResult } from '../scenarios/attach.js';
import type { HistoryResult } from '../scenarios/history.js';
import type { FootprintResult } from '../scenarios/receipts-footprint.js';
import type { FilesResult, ScalingResults, WakeResults } from './scenario-results.js';
import type { RatioSpread, Repeated } from './reps.js';

export type Ref<T> = T | null;
/** A result measured once (NATS) or over repetitions (svc, baseline, the Postgres rows: medians with their spread). */
export type Measured<T> = Ref<T & Partial<Pick<Repeated<T>, 'reps' | 'spread'>>>;
/** svc / baseline per figure, from the interleaved repetitions. */
export type Ratios<T> = Partial<Record<keyof T & string, RatioSpread>>;
export type Paced = FanoutResult['paced'];
export type Max = FanoutResult['max'];

export interface Results {
  date: string;
  machine: { cores: number; memory_gb: number; node: string; cpu?: string; loadavg_start: number; loadavg_end?: number };
  size: string;
  /**
   * The sizes behind the numbers (clients, subscribers, stored messages); `reps`: repetitions per
   * side; `paced_rate`: the paced rows' messages/s, `paced_share` of `baseline_unpaced_msgs_per_s`
   * (the baseline's unpaced fan-out in this run; null when it could not be measured and the size's
   * fixed rate was used).
   */
  params: {
    ingest_clients: number;
    subscribers: number;
    paced_rate: number;
    paced_share?: number;
    baseline_unpaced_msgs_per_s?: number | null;
    attachments?: number;
    seconds: number;
    reps?: number;
  };
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
    /** The same with one agent attached: what the send costs without the fan-out. */
    svc_postgres_cross_one?: Measured<Paced>;
    svc_vs_baseline?: Ratios<Paced>;
    note?: string;
  };
  fanout_max: { svc: Measured<Max>; baseline: Measured<Max>; nats: Measured<Max>; svc_vs_baseline?: Ratios<Max>; note?: string };
  sse_fanout: {
    svc: Ref<{
      deliveries_per_s: number | null;
      p50_ms: number | null;
      p99_ms: number | null;
      rate: number;
      complete: boolean;
      /** The host's idle share during the paced phase (%). */
      idle_pct?: number | null;
    }>;
    note?: string;
  };
  /**
   * The cost of receipts (docs/receipts.md): ingest and fan-out on svc as it ships (receipts on)
   * and with `server.receipts: false`, interleaved; `with_vs_without`: with / without per figure.
   */
  receipts?: {
    ingest: { with: Measured<IngestResult>; without: Measured<IngestResult>; with_vs_without?: Ratios<IngestResult> };
    fanout_max: { with: Measured<Max>; without: Measured<Max>; with_vs_without?: Ratios<Max> };
    /** What each side keeps per 1,000 deliveries to ACKing agents: store bytes and resident memory. */
    per_1k_deliveries: { with: Measured<FootprintResult>; without: Measured<FootprintResult> };
    note?: string;
  };
  history: { svc: Ref<HistoryResult>; note?: string };
  /** Scenario 6: N attachments on one svc instance, and the baseline's `ws` server with N sockets. */
  attach_10k?: { svc: Ref<AttachResult>; baseline: Ref<AttachResult>; note?: string };
  write_cost_ratio: { svc: number | null; note?: string };
  /** 1, 2 and 4 instances on one Postgres under the same paced fan-out (scenarios/scaling.ts). */
  scaling?: ScalingResults;
  /** A mention's wake of `svc agent run` and of an MCP wait, beside the baseline's frames (scenarios/wake.ts). */
  wake?: WakeResults;
  /** The upload row: 10 MiB uploads' MiB/s and the ingest p99 with them beside it alone. */
  files?: (FilesResult & { note?: string }) | { note: string };
  /** The search index's lag under the full ingest (medians of the rounds' p99 and longest samples), ms. */
  search: { index_lag_p99_ms: number | null; index_lag_max_ms: number | null };
  references: { nats_version?: string; nats_note?: string };
  notes: string[];
}

/** The heading line for README: date, size, machine, and how the svc and baseline figures were taken. */
export function heading(r: Results): string {
  const reps = r.params.reps ?? 1;
  const how =
    reps > 1
      ? ` svc and baseline: median (min–max) of ${reps} interleaved repetitions each, svc / baseline from the medians (range over the pairs); the Postgres and receipts rows: median (min–max) of ${reps} repetitions; the write cost: the median of ${reps} rounds, the longest stall: the worst of them (each in brackets); the rest one run.`
      : '';
  const p = r.params;
  const paced =
    p.baseline_unpaced_msgs_per_s != null
      ? ` Paced rows at ${p.paced_rate}/s, ${p.paced_share ?? 0.25} of the ${p.baseline_unpaced_msgs_per_s} messages/s the baseline fanned out unpaced in this run.`
      : ` Paced rows at a fixed ${p.paced_rate}/s (the baseline's unpaced rate was not measured).`;
  return `Measured ${r.date.slice(0, 10)} (${r.size} run) on ${r.machine.cores} cores, ${r.machine.memory_gb} GB, Node ${r.machine.node}${r.machine.cpu ? `, ${r.machine.cpu}` : ''}${r.references.nats_version ? `; ${r.references.nats_version}` : ''}.${how}${paced} A row marked saturated had under 20% of the host idle while it ran.`;
}
