// Where the time of one retention purge write goes on a loaded store, without HTTP: a copy of a
// store filled by bench/loader.ts is opened as `svc serve` opens it (every part, a 16 MiB
// checkpoint threshold), and then batches of a room's oldest
// messages are purged through Store.write as the retention job does. Each batch's synchronous
// time (what the event loop waits for), the expired-ids read before it, and every SQL statement
// run inside it (by text, summed over the batches) are reported, with the query plan of each
// statement a purge runs.
//
//   node --import tsx bench/tools/purge-cost.ts --store DIR [--batch 25] [--batches 40] [--rooms 1] [--keep 9000] [--profile OUT.cpuprofile]
//
// DIR holds a loaded store (bench/loader.ts --dir DIR --messages 1000000 --rooms 100).

import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { SqlValue } from 'sql.js';
import { opt } from '../lib/args.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { Db } from '../../src/store/sqlite/db.js';

const storeDir = opt('--store') ?? '';
if (!storeDir) throw new Error('--store DIR is required');
const batch = Number(opt('--batch') ?? '25');
const batches = Number(opt('--batches') ?? '40');
/** The rooms purged one after the other (r0, r1, ...), as the job walks them. */
const roomCount = Number(opt('--rooms') ?? '1');
const keep = Number(opt('--keep') ?? '9000');
/** A CPU profile of the batches alone (not the open or the search backlog) goes to this file. */
const profileTo = opt('--profile');

const dir = mkdtempSync(path.join(os.tmpdir(), 'purge-cost-'));
for (const name of readdirSync(storeDir).filter((n) => n.startsWith('svc.db'))) cpSync(path.join(storeDir, name), path.join(dir, name));

const store = await openSqliteStore({ path: path.join(dir, 'svc.db'), checkpointBytes: 16 * 1024 * 1024 });
const db = (store as unknown as { db: Db }).db;
await new Promise((r) => setTimeout(r, 500));

// Statement timings, by SQL text, while `recording`.
let recording = false;
const spent = new Map<string, { n: number; ms: number }>();
const wrap = <F extends (sql: string, params?: SqlValue[]) => unknown>(f: F): F =>
  ((sql: string, params?: SqlValue[]) => {
    if (!recording) return f(sql, params);
    const t = performance.now();
    try {
      return f(sql, params);
    } finally {
      const s = spent.get(sql) ?? { n: 0, ms: 0 };
      s.n++;
      s.ms += performance.now() - t;
      spent.set(sql, s);
    }
  }) as F;
const mutable = db as unknown as { run: Db['run']; one: Db['one']; all: Db['all'] };
const [run0, one0, all0] = [db.run, db.one.bind(db), db.all.bind(db)];
mutable.run = wrap(run0);
mutable.one = wrap(one0);
mutable.all = wrap(all0);

// The query plan of every statement a purge runs, for one id.
const plan = (sql: string, params: SqlValue[]) =>
  all0(`EXPLAIN QUERY PLAN ${sql}`, params)
    .map((r) => r[3])
    .join(' | ');

const convs = Array.from({ length: roomCount }, (_, k) => `room:r${k}`);
const session = profileTo ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
}
const h = monitorEventLoopDelay({ resolution: 1 });
const sync: number[] = [];
const reads: number[] = [];
const whole: number[] = [];
/** Pages first changed since the last checkpoint by each write (the tracker's count grows by them). */
const pages: number[] = [];
const tracked = () => store.pages?.size ?? 0;
let plansShown = false;
/** The synchronous part of each write, by room (the first room pays for pages no write touched yet). */
const byRoom: string[] = [];
for (let b = 0, r = 0; b < batches && r < convs.length; b++) {
  let t = performance.now();
  const ids = await store.expiredMessages({ conv: convs[r]!, keep, limit: batch });
  reads.push(performance.now() - t);
  if (ids.length === 0) {
    r++;
    b--;
    continue;
  }
  if (byRoom.length <= r) byRoom.push('');
  recording = true;
  h.enable();
  const pages0 = tracked();
  t = performance.now();
  const p = store.write([{ op: 'message.purge', ids }]);
  sync.push(performance.now() - t);
  byRoom[r] += ` ${sync[sync.length - 1]!.toFixed(0)}`;
  // The turn's COMMIT (and any checkpoint step) comes in a later turn: recorded too.
  await p;
  whole.push(performance.now() - t);
  await new Promise((r) => setImmediate(r));
  recording = false;
  h.disable();
  if (tracked() >= pages0) pages.push(tracked() - pages0);
  if (!plansShown) {
    plansShown = true;
    console.log('query plans (first statement run of each, for one id):');
    for (const sql of spent.keys()) {
      if (!/^(DELETE|INSERT|UPDATE|SELECT)/.test(sql)) continue;
      const n = (sql.match(/\?/g) ?? []).length;
      const params: SqlValue[] = Array.from({ length: n }, () => (sql.includes('json_each(?)') ? JSON.stringify(ids) : ids[0]!));
      try {
        console.log(`  ${sql.slice(0, 110)}\n      -> ${plan(sql, params)}`);
      } catch (err) {
        console.log(`  ${sql.slice(0, 110)}\n      -> (no plan: ${(err as Error).message})`);
      }
    }
  }
}

if (session) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(profileTo!, JSON.stringify(profile));
}

const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(2);
  return `n=${s.length} p50=${q(0.5)} p90=${q(0.9)} max=${s[s.length - 1]!.toFixed(2)} ms`;
};
console.log(`\nbatch of ${batch} in ${convs.join(', ')} (keep ${keep}):`);
byRoom.forEach((line, k) => console.log(`  r${k}, each write's synchronous part (ms):${line}`));
console.log(`  expired-ids read: ${stat(reads)}`);
console.log(`  write, synchronous part: ${stat(sync)}`);
console.log(`  write until durable: ${stat(whole)}`);
if (pages.length > 0) console.log(`  pages newly changed per write (none since the last checkpoint): ${stat(pages).replace(/ ms/, '')}`);
console.log(`  longest loop stall around the writes: ${(h.max / 1e6).toFixed(2)} ms`);
console.log("\nstatements from each write to its durability (the turn's COMMIT included; summed, per batch):");
const rows = [...spent.entries()].sort((a, b) => b[1].ms - a[1].ms);
for (const [sql, s] of rows.slice(0, 25))
  console.log(
    `  ${(s.ms / sync.length).toFixed(2).padStart(8)} ms  x${(s.n / sync.length).toFixed(1).padStart(5)}  ${sql.replace(/\s+/g, ' ').slice(0, 120)}`,
  );
const total = rows.reduce((a, [, s]) => a + s.ms, 0) / sync.length;
console.log(`  ${total.toFixed(2).padStart(8)} ms  in SQL per batch, of ${(sync.reduce((a, b) => a + b, 0) / sync.length).toFixed(2)} ms`);

await store.close();
rmSync(dir, { recursive: true, force: true });
