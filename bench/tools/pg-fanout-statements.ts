// Which statements a paced cross-instance fan-out on Postgres costs the database: the publisher on
// one instance, `n` ACKing agents attached to a second, the same schema. Prints transactions and
// database CPU per message, then the statements by total time (pg_stat_statements).
//
//   npm run build && node --import tsx bench/tools/pg-fanout-statements.ts [agents=100] [rate=400] [seconds=10] [--one | --both]
//
// --one: the agents attach to the publisher's instance (no second instance), as scaling's instances_1.
// --both: both instances publish, half the rate each (the agents on the second), as scaling's instances_2.
// --prof DIR: the second instance runs under `node --cpu-prof` into DIR (read it with profile-summary.ts).

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql, startOwnCluster } from '../../test/helpers/pg.js';
import { paced, postBytes } from '../lib/http.js';
import { cpuMs } from '../lib/procs.js';
import { PUBLISHER, sendBody, startSvc, TOKEN } from '../lib/svc.js';
import { crossTarget } from '../lib/targets.js';
import { postmasterPid } from '../scenarios/postgres.js';

/**
 * How long to let every backend report its counts before reading pg_stat_database: a backend
 * flushes its transaction counts at most once a second while busy, and after 10 s idle otherwise,
 * so a window read sooner counts transactions from before it and misses its own last ones.
 */
const STATS_FLUSH_MS = 11_000;
const nums = process.argv.slice(2).filter((a) => /^\d+$/.test(a));
const [agents, rate, seconds] = [100, 400, 10].map((d, i) => Number(nums[i] ?? d));
const one = process.argv.includes('--one');
const both = process.argv.includes('--both');
const profDir = process.argv.includes('--prof') ? path.resolve(process.argv[process.argv.indexOf('--prof') + 1]!) : undefined;
const tmp = mkdtempSync(path.join(os.tmpdir(), 'svc-pgfan-'));
const cluster = await startOwnCluster({
  durable: true,
  settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' },
});
/** CPU ticks (user + system, 100 a second) of the cluster's processes by what each is (its title). */
const dbTicks = (): Map<string, number> => {
  const root = postmasterPid(cluster.dataDir);
  const out = new Map<string, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(d) !== root && Number(stat[1]) !== root) continue;
      // "postgres: checkpointer", "postgres: postgres svc 127.0.0.1(40112) idle": the kind, not the port.
      const title = readFileSync(`/proc/${d}/cmdline`, 'utf8')
        .replace(/\0/g, ' ')
        .replace(/\(\d+\).*/, '')
        .trim();
      out.set(title, (out.get(title) ?? 0) + Number(stat[11]) + Number(stat[12]));
    } catch {
      // A process that ended between the listing and the read.
    }
  }
  return out;
};
const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
try {
  await sql(cluster.url, 'CREATE EXTENSION pg_stat_statements');
  const rooms = [{ id: 'fanout', members: [PUBLISHER, ...Array.from({ length: agents }, (_, k) => `a${k}`)] }];
  const start = (name: string, nodeArgs?: string[]) => {
    const dir = path.join(tmp, name);
    mkdirSync(dir);
    return startSvc({ dir, rooms, postgres: { url: cluster.url, schema: 'probe' }, ...(nodeArgs ? { nodeArgs } : {}) });
  };
  const pub = await start('a');
  const sub = one ? pub : await start('b', profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : undefined);
  const t = crossTarget(pub, sub);
  const pool = await t.subscribe('svc-attach', agents);
  await new Promise((r) => setTimeout(r, STATS_FLUSH_MS));
  /** Transactions so far, and of them rolled back (a failed statement, which pg_stat_statements does not list). */
  const xacts = async () => {
    const [row] = await sql(
      cluster.url,
      'SELECT xact_commit + xact_rollback AS n, xact_rollback AS r FROM pg_stat_database WHERE datname = current_database()',
    );
    return { n: Number(row?.n), r: Number(row?.r) };
  };
  await sql(cluster.url, 'SELECT pg_stat_statements_reset()');
  const x0 = await xacts();
  const c0 = dbTicks();
  const [p0, s0] = [cpuMs(pub.pid) ?? 0, cpuMs(sub.pid) ?? 0];
  const r = both
    ? await Promise.all(
        [pub, sub].map((x, k) =>
          paced(x.port, { rate: rate / 2, seconds, inflight: 8 }, (i) =>
            postBytes('/v1/messages', sendBody('fanout', `probe ${k}.${i}`), TOKEN),
          ),
        ),
      ).then((rs) => ({ ok: rs.reduce((n, x) => n + x.ok, 0) }))
    : await t.publish({ rate, seconds, inflight: 8 }, (i) => `probe ${i}`);
  await new Promise((res) => setTimeout(res, STATS_FLUSH_MS));
  const x1 = await xacts();
  const c1 = dbTicks();
  const n = r.ok;
  const perMsg = (ms: number) => ((ms * 1000) / n).toFixed(0);
  console.log(
    `instance CPU per message: publisher ${perMsg((cpuMs(pub.pid) ?? 0) - p0)} µs${one ? '' : `, subscriber ${perMsg((cpuMs(sub.pid) ?? 0) - s0)} µs`}`,
  );
  console.log(
    `${n} messages to ${agents} agents: ${((x1.n - x0.n) / n).toFixed(3)} transactions (${((x1.r - x0.r) / n).toFixed(3)} rolled back) and ${(((total(c1) - total(c0)) * 10000) / n).toFixed(0)} µs of database CPU per message`,
  );
  for (const [title, ticks] of c1) {
    const us = ((ticks - (c0.get(title) ?? 0)) * 10000) / n;
    if (us >= 1) console.log(`${us.toFixed(0).padStart(7)} µs/message  ${title}`);
  }
  const tables = await sql(
    cluster.url,
    `SELECT relname, n_tup_ins AS ins, n_tup_upd AS upd, n_tup_hot_upd AS hot, n_tup_del AS del, seq_scan + coalesce(idx_scan, 0) AS scans
       FROM pg_stat_user_tables WHERE schemaname = 'probe' AND n_tup_ins + n_tup_upd + n_tup_del > 0 ORDER BY n_tup_upd DESC`,
  );
  for (const t of tables)
    console.log(
      `table ${t.relname}: ${t.ins} inserted, ${t.upd} updated (${t.hot} HOT), ${t.del} deleted since the start, ${t.scans} scans`,
    );
  const rows = await sql(
    cluster.url,
    `SELECT calls, round(total_exec_time::numeric, 1) AS ms, round(total_plan_time::numeric, 1) AS plan, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS q
       FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 25`,
  );
  for (const row of rows)
    console.log(
      `${String(row.calls).padStart(7)} calls ${String(row.ms).padStart(9)} ms ${String(row.plan).padStart(8)} plan ${String(row.rows).padStart(8)} rows  ${row.q}`,
    );
  await pool.close();
  await Promise.all([pub.stop(), ...(one ? [] : [sub.stop()])]);
} finally {
  cluster.destroy();
  rmSync(tmp, { recursive: true, force: true });
}
