// Scenario 3b: svc on a Postgres store. `ingest.svc_postgres` is scenario 1 on one instance;
// `fanout_paced.svc_postgres_cross` is scenario 2's paced phase with the publisher on one instance
// and the agents attached to a second on the same schema; `svc_postgres_cross_one` the same with
// one agent attached, so the difference is what the fan-out itself costs the database (#43 part 4:
// the send's own commit is in both). Each `reps` times (ingest, cross, ...)
// on fresh instances and a fresh schema, reported as medians like the sqlite rows they are compared
// with. The database is a local throwaway cluster with fsync on (as durable as sqlite's journal).

import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql, startOwnCluster } from '../../test/helpers/pg.js';
import { combine } from '../lib/reps.js';
import { type RunContext, SUMMED } from '../lib/run-context.js';
import type { Sizes } from '../lib/sizes.js';
import { startSvc } from '../lib/svc.js';
import { crossTarget, svcTarget } from '../lib/targets.js';
import { PUBLISHER } from '../lib/svc.js';
import { type IngestResult, type PacedResult, runIngest, runPaced } from './live.js';
import { markSaturation } from './paced-rate.js';

/** Runs the Postgres rows; `paced` are the sizes with the run's paced rate. */
export async function runPostgres(ctx: RunContext, fanoutRoom: { id: string; members: string[] }, paced: Sizes): Promise<void> {
  const { results, step, note, noteOn, log, reps, tmp } = ctx;
  const cluster = await step(
    'postgres start',
    () => startOwnCluster({ durable: true }),
    (m) => {
      noteOn(results.ingest, m);
      noteOn(results.fanout_paced, m);
    },
  );
  if (!cluster) return;
  const dbPid = postmasterPid(cluster.dataDir);
  const dbTransactions = async () =>
    Number(
      (await sql(cluster.url, 'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()'))[0]?.n,
    );
  const ingests: (IngestResult | null)[] = [];
  const crosses: (PacedResult | null)[] = [];
  const ones: (PacedResult | null)[] = [];
  const oneAgent = { ...paced, fanout: { ...paced.fanout, subscribers: 1 } };
  try {
    const rooms = [{ id: 'ingest', members: [PUBLISHER] }, fanoutRoom];
    const start = (name: string, schema: string) => {
      const dir = path.join(tmp, name);
      mkdirSync(dir);
      return step(`${name} start`, () => startSvc({ dir, rooms, postgres: { url: cluster.url, schema } }));
    };
    for (let k = 1; k <= reps; k++) {
      const rep = reps > 1 ? ` (repetition ${k} of ${reps})` : '';
      const one = await start(`svc-pg-${k}`, `bench_ingest_${k}`);
      if (one) {
        try {
          log(`svc_postgres: ingest${rep}`);
          const t = { ...svcTarget(one, 'svc_postgres'), ...(dbPid ? { dbPid } : {}), dbTransactions };
          ingests.push(
            await step(
              'svc_postgres ingest',
              () => runIngest(t, ctx.sizes, note),
              (m) => noteOn(results.ingest, m),
            ),
          );
        } finally {
          await one.stop();
          // The ingest's tables would be vacuumed and analyzed by the database during the next row.
          await sql(cluster.url, `DROP SCHEMA bench_ingest_${k} CASCADE`).catch((err: Error) =>
            note(`dropping the ingest schema failed: ${err.message}`),
          );
        }
      }
      results.ingest.svc_postgres = combine(ingests, SUMMED);
      for (const [sizes, into, name] of [
        [paced, crosses, 'cross'],
        [oneAgent, ones, 'cross1'],
      ] as const) {
        const pub = await start(`svc-pg-${name}-a-${k}`, `bench_${name}_${k}`);
        const sub = pub && (await start(`svc-pg-${name}-b-${k}`, `bench_${name}_${k}`));
        if (!pub || !sub) {
          await pub?.stop();
          continue;
        }
        log(`svc_postgres_cross: paced fan-out at ${paced.fanout.rate}/s to ${sizes.fanout.subscribers} agent(s)${rep}`);
        const t = { ...crossTarget(pub, sub), ...(dbPid ? { dbPid } : {}), dbTransactions };
        try {
          into.push(
            await step(
              `svc_postgres_cross fan-out to ${sizes.fanout.subscribers}`,
              () => runPaced(t, 'svc-attach', sizes, note),
              (m) => noteOn(results.fanout_paced, m),
            ),
          );
        } finally {
          await t.stop();
        }
      }
      results.fanout_paced.svc_postgres_cross = markSaturation(combine(crosses, SUMMED));
      results.fanout_paced.svc_postgres_cross_one = markSaturation(combine(ones, SUMMED));
    }
  } finally {
    cluster.destroy();
  }
}

/** The pid of a cluster's postmaster (first line of postmaster.pid), when this process started it. */
export function postmasterPid(dataDir: string | undefined): number | undefined {
  try {
    const pid = dataDir ? Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]) : NaN;
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
