// The result shapes of the scenarios that take a RunContext, apart from their code: lib/report.ts
// reads them, and the scenarios import lib/run-context.ts, which reads report.ts.

/** What one instance count measured (results.json `scaling.instances_N`). */
export interface ScalingRow {
  instances: number;
  /** Messages per second published over all instances (the run's paced rate). */
  rate: number;
  agents: number;
  /** Every delivery over the time from the first post to the last delivery. */
  deliveries_per_s: number | null;
  /** CPU per published message of one instance (µs): the mean over the instances; each in `_each`. */
  instance_cpu_us_per_msg: number | null;
  instance_cpu_us_per_msg_each: (number | null)[];
  db_cpu_us_per_msg: number | null;
  db_xacts_per_msg: number | null;
  /** Publish to delivery over every agent's every message. */
  p50_ms: number | null;
  p99_ms: number | null;
  complete: boolean;
  delivered: number;
  expected: number;
  /** The host's idle share while publishing (%). */
  idle_pct: number | null;
  /**
   * The same processes with the agents attached and nothing sent (AT_REST_S seconds before the
   * paced phase): what instances cost per second whatever the traffic (heartbeats, leases, the
   * feed's safety poll), which the per-message figures above include at a low rate.
   */
  at_rest: { instance_cpu_ms_per_s: number | null; db_cpu_ms_per_s: number | null; db_xacts_per_s: number | null };
}
export interface ScalingResults {
  instances_1?: ScalingRow | null;
  instances_2?: ScalingRow | null;
  instances_4?: ScalingRow | null;
  note?: string;
}

/** A wake path's figures. */
export interface WakeFigures {
  p50_ms: number | null;
  p99_ms: number | null;
  /** Mentions measured. */
  probes?: number;
}
/** results.json `wake`. */
export interface WakeResults {
  agent_run?: WakeFigures | null;
  mcp_wait?: WakeFigures | null;
  /** The baseline's publish-to-frame latency at the same paced load. */
  baseline?: WakeFigures | null;
  /** svc's own publish-to-EVENT latency of the load while the wakes were measured. */
  svc_load?: WakeFigures | null;
  /** The load: messages/s and attached agents. */
  rate?: number;
  agents?: number;
  /** The host's idle share (%) while the wakes were measured, and during the baseline's run. */
  idle_pct?: number | null;
  baseline_idle_pct?: number | null;
  saturated?: boolean;
  note?: string;
}

export interface FilesResult {
  /** Uploaded MiB per second: every upload of the rounds, from the first start to the last finish of each round. */
  upload_mib_per_s: number | null;
  ingest_p99_ms_with_uploads: number | null;
  ingest_p99_ms_alone: number | null;
  /** with / alone: how much the uploads held up the sends. */
  ingest_p99_ratio: number | null;
  upload_bytes: number;
  uploaders: number;
  /** Uploads finished, over every round. */
  uploads: number;
  reps: number;
}
