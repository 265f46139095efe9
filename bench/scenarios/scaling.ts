// The cost curve of instances: 1, 2 and 4 `svc serve` processes on one PostgreSQL schema (a
// throwaway cluster of the run's, fsync on), the same paced fan-out spread over them: a publisher
// on each instance at an equal share of the run's paced rate, the agents attached across the
// instances in equal blocks. So with n instances (n - 1) / n of every message's
// deliveries cross an instance boundary, through the database. For each count: deliveries/s, each
// instance's CPU per published message (every instance handles every message: it either took the
// send or learned of it from the database), and the database's CPU (the postmaster and its
// backends, from /proc) and transactions (pg_stat_database) per message; and the same processes'
// cost per second at rest (agents attached, nothing sent). Measured once per count, on fresh
// instances and a fresh schema.

import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { sql, startOwnCluster } from '../../test/helpers/pg.js';
import { paced, postBytes } from '../lib/http.js';
import { SubscriberPool } from '../lib/pool.js';
import { cpuMs, idleMeter, treeCpuMs } from '../lib/procs.js';
import { postmasterPid } from './postgres.js';
import { settleMs, xactWindow } from '../lib/pg-xacts.js';
import type { RunContext } from '../lib/run-context.js';
import type { Sizes } from '../lib/sizes.js';
import { nowMs, round, Samples, sleep } from '../lib/stats.js';
import { NETWORK, sendBody, startSvc, type SvcServer, TOKEN } from '../lib/svc.js';
import type { ScalingRow, ScalingResults } from '../lib/scenario-results.js';
export type { ScalingRow, ScalingResults };

/** Seconds of no traffic measured before each paced phase (`at_rest`). */
export const AT_REST_S = 2;

/** The instance counts of the curve. */
export const SCALING_COUNTS = [1, 2, 4] as const;

/** The agents of each instance: `agents` in `instances` contiguous blocks [first, first + n) that differ by at most one. */
export function spread(agents: number, instances: number): { first: number; n: number }[] {
  const out: { first: number; n: number }[] = [];
  let first = 0;
  for (let i = 0; i < instances; i++) {
    const n = Math.floor(agents / instances) + (i < agents % instances ? 1 : 0);
    out.push({ first, n });
    first += n;
  }
  return out;
}

/** Runs the curve; `paced` are the sizes with the run's paced rate. */
export async function runScaling(ctx: RunContext, fanoutRoom: { id: string; members: string[] }, s: Sizes): Promise<void> {
  const { step, noteOn, log, tmp } = ctx;
  const out: ScalingResults = {};
  ctx.results.scaling = out;
  const cluster = await step(
    'scaling: postgres start',
    () => startOwnCluster({ durable: true }),
    (m) => noteOn(out, m),
  );
  if (!cluster) return;
  const dbPid = postmasterPid(cluster.dataDir);
  const xacts = async () =>
    Number(
      (await sql(cluster.url, 'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()'))[0]?.n,
    );
  try {
    for (const n of SCALING_COUNTS) {
      log(`scaling: ${n} instance(s) on one Postgres, paced fan-out at ${s.fanout.rate}/s to ${s.fanout.subscribers} agents`);
      const schema = `bench_scale_${n}`;
      out[`instances_${n}`] = await step(
        `scaling ${n} instance(s)`,
        async () => {
          const servers: SvcServer[] = [];
          try {
            const start = async (i: number) => {
              const dir = path.join(tmp, `scale-${n}-${i}`);
              mkdirSync(dir);
              const x = await startSvc({ dir, rooms: [fanoutRoom], postgres: { url: cluster.url, schema } });
              servers.push(x);
              return x;
            };
            // The first creates the schema; the others start together on it.
            await start(0);
            const rest = await Promise.allSettled(Array.from({ length: n - 1 }, (_, i) => start(i + 1)));
            const failed = rest.find((r) => r.status === 'rejected');
            if (failed) throw (failed as PromiseRejectedResult).reason;
            return await measure(servers, s, dbPid, xacts, ctx.note);
          } finally {
            await Promise.all(servers.map((x) => x.stop()));
            await sql(cluster.url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch((err: Error) =>
              ctx.note(`scaling: dropping ${schema} failed: ${err.message}`),
            );
          }
        },
        (m) => noteOn(out, m),
      );
    }
  } finally {
    cluster.destroy();
  }
}

/** Publishes from every instance at once, `rate / n` each, for `seconds`; texts `b <phase> <i> <t>`. */
async function publishAll(servers: SvcServer[], rate: number, seconds: number, phase: string) {
  const each = rate / servers.length;
  return Promise.all(
    servers.map((x, k) =>
      paced(x.port, { rate: each, seconds, inflight: 8 }, (i, t) =>
        postBytes('/v1/messages', sendBody('fanout', `b ${phase} ${k}.${i} ${t}`), TOKEN),
      ),
    ),
  );
}

async function measure(
  servers: SvcServer[],
  s: Sizes,
  dbPid: number | undefined,
  xacts: () => Promise<number>,
  note: (m: string) => void,
): Promise<ScalingRow> {
  const n = servers.length;
  const agents = s.fanout.subscribers;
  const blocks = spread(agents, n).map((b, i) => ({ ...b, server: servers[i]! }));
  const pools: SubscriberPool[] = [];
  try {
    // One subscriber process per instance, started together (each is a process start).
    const started = await Promise.allSettled(
      blocks
        .filter((x) => x.n > 0)
        .map((b) =>
          SubscriberPool.start({ kind: 'svc-attach', port: b.server.port, n: b.n, first: b.first, token: TOKEN, network: NETWORK }),
        ),
    );
    for (const r of started) if (r.status === 'fulfilled') pools.push(r.value);
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    const all = <T>(f: (p: SubscriberPool) => Promise<T>) => Promise.all(pools.map(f));
    // Warm-up outside the numbers: connections, JIT, the instances' first reads of each other's writes.
    await all((p) => p.phase('w', false));
    const w = await publishAll(servers, s.fanout.rate, Math.min(1, s.fanout.seconds / 2), 'w');
    await all((p) =>
      p.waitFor(
        w.reduce((a, r) => a + r.ok, 0),
        10_000,
      ),
    );
    // pg_stat_database reports late (lib/pg-xacts.ts): the warm-up's transactions land before the window.
    const xw = await xactWindow(xacts, settleMs(s));
    const rest0 = { cpu: servers.map((x) => cpuMs(x.pid)), db: treeCpuMs(dbPid), at: nowMs() };
    await sleep(AT_REST_S * 1000);
    const rest1 = { cpu: servers.map((x) => cpuMs(x.pid)), db: treeCpuMs(dbPid), at: nowMs() };
    const restS = (rest1.at - rest0.at) / 1000;
    const perS = (a: number | null | undefined, b: number | null | undefined) => (a != null && b != null ? round((b - a) / restS) : null);
    const restCpu = servers.map((_, i) => perS(rest0.cpu[i], rest1.cpu[i])).filter((x): x is number => x !== null);
    const at_rest = {
      instance_cpu_ms_per_s: restCpu.length ? round(restCpu.reduce((a, b) => a + b, 0) / restCpu.length) : null,
      db_cpu_ms_per_s: perS(rest0.db, rest1.db),
    };

    await all((p) => p.phase('p'));
    const cpu0 = servers.map((x) => cpuMs(x.pid));
    const db0 = treeCpuMs(dbPid);
    const idle = idleMeter();
    const t0 = nowMs();
    const pubs = await publishAll(servers, s.fanout.rate, s.fanout.seconds, 'p');
    const idlePct = idle();
    const ok = pubs.reduce((a, r) => a + r.ok, 0);
    const errors = pubs.reduce((a, r) => a + r.errors, 0);
    if (errors > 0) note(`scaling ${n}: ${errors} failed publishes (first: ${pubs.find((r) => r.firstError)?.firstError})`);
    const reps = await all((p) => p.waitFor(ok, 15_000));
    const cpu1 = servers.map((x) => cpuMs(x.pid));
    const db1 = treeCpuMs(dbPid);
    const { xacts: x, restPerS } = await xw.stop();
    const delivered = reps.reduce((a, r) => a + r.received.reduce((x, y) => x + y, 0), 0);
    const complete = reps.every((r) => r.complete);
    if (!complete) note(`scaling ${n}: ${delivered} of ${ok * agents} deliveries arrived`);
    const lastAt = Math.max(...reps.map((r) => r.lastAt));
    const lat = new Samples();
    for (const v of await all((p) => p.samples())) lat.merge(v);
    const l = lat.summary();
    const per = (a: number | null | undefined, b: number | null | undefined, scale = 1000) =>
      a != null && b != null && ok > 0 ? round(((b - a) * scale) / ok) : null;
    const each = servers.map((_, i) => per(cpu0[i], cpu1[i]));
    const known = each.filter((x): x is number => x !== null);
    return {
      instances: n,
      rate: Math.round(pubs.reduce((a, r) => a + r.rate, 0)),
      agents,
      deliveries_per_s: lastAt > t0 && delivered > 0 ? Math.round(delivered / ((lastAt - t0) / 1000)) : null,
      instance_cpu_us_per_msg: known.length ? round(known.reduce((a, b) => a + b, 0) / known.length) : null,
      instance_cpu_us_per_msg_each: each,
      db_cpu_us_per_msg: per(db0, db1),
      db_xacts_per_msg: x !== null && ok > 0 ? round((x - (restPerS ?? 0) * restS) / ok) : null,
      p50_ms: l.p50_ms,
      p99_ms: l.p99_ms,
      complete,
      delivered,
      expected: ok * agents,
      idle_pct: idlePct,
      at_rest: { ...at_rest, db_xacts_per_s: restPerS },
    };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
}
