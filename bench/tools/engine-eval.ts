// The alternative to sql.js plus our journal, measured the way store-write.ts measures our store:
// a WASM SQLite that writes through a file VFS (node-sqlite3-wasm), N message-sized rows made
// durable one transaction per event-loop turn of `concurrency` writes (the best it can do: its
// calls are synchronous, so a COMMIT's fsync blocks the loop). Also checks what the build offers
// (FTS4, FTS5, a backup API), runs the same rows through the shape of our engine (sql.js in memory,
// a journal line per write, an fdatasync per turn off the loop), and whether a writer killed inside a transaction leaves a lock behind.
// The package is not a dependency: install it next to the repo first.
//
//   npm install --no-save node-sqlite3-wasm
//   node --import tsx bench/tools/engine-eval.ts [N] [concurrency]

import { spawn } from 'node:child_process';
import { closeSync, fdatasync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import initSqlJs from 'sql.js';

interface WasmDb {
  exec(sql: string): void;
  run(sql: string, values?: unknown[]): void;
  close(): void;
  backup?: unknown;
}
const moduleName = 'node-sqlite3-wasm';
const wasm = (await import(moduleName).catch(() => {
  console.error(`engine-eval: ${moduleName} is not installed (npm install --no-save ${moduleName})`);
  process.exit(1);
})) as { default: { Database: new (file: string) => WasmDb } };
const { Database } = wasm.default;

const n = Number(process.argv[2] ?? 10000);
const conc = Number(process.argv[3] ?? 50);
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-engine-eval-'));
const body = JSON.stringify({ text: 'hello there, a message of ordinary length', pad: 'x'.repeat(400) });

const db = new Database(path.join(dir, 'vfs.db'));
db.exec('PRAGMA synchronous=FULL; CREATE TABLE m(id INTEGER PRIMARY KEY, body TEXT)');
const stalls = monitorEventLoopDelay({ resolution: 1 });
stalls.enable();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let longestCommit = 0;
for (let i = 0; i < n; i += conc) {
  db.exec('BEGIN');
  for (let j = 0; j < conc && i + j < n; j++) db.run('INSERT INTO m(body) VALUES (?)', [body]);
  const c = performance.now();
  db.exec('COMMIT');
  longestCommit = Math.max(longestCommit, performance.now() - c);
  await new Promise((r) => setImmediate(r));
}
const ms = performance.now() - t0;
stalls.disable();
const cpu = process.cpuUsage(cpu0);
console.log(
  `file VFS: ${n} writes in ${Math.round(ms)} ms: ${Math.round(n / (ms / 1000))}/s, main-thread cpu ${((cpu.user + cpu.system) / n).toFixed(1)} us/write, ` +
    `longest COMMIT ${longestCommit.toFixed(1)} ms, longest stall ${(stalls.max / 1e6).toFixed(1)} ms`,
);
const has = (sql: string) => {
  try {
    db.exec(sql);
    return 'yes';
  } catch (err) {
    return `no (${(err as Error).message})`;
  }
};
console.log(
  `FTS4: ${has('CREATE VIRTUAL TABLE f4 USING fts4(x)')}; FTS5: ${has('CREATE VIRTUAL TABLE f5 USING fts5(x)')}; backup API: ${typeof db.backup === 'function' ? 'yes' : 'no'}`,
);
db.close();

// The same rows through our engine's shape: sql.js in memory, one journal line per write, one
// fdatasync per turn run off the loop (libuv's pool), the next turn's rows written meanwhile.
{
  const SQL = await initSqlJs();
  const mem = new SQL.Database();
  mem.run('CREATE TABLE m(id INTEGER PRIMARY KEY, body TEXT)');
  const insert = mem.prepare('INSERT INTO m(body) VALUES (?)');
  const fd = openSync(path.join(dir, 'journal'), 'a');
  const sync = promisify(fdatasync);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const c0 = process.cpuUsage();
  const s0 = performance.now();
  let inFlight: Promise<void> = Promise.resolve();
  for (let i = 0; i < n; i += conc) {
    mem.run('BEGIN');
    let lines = '';
    for (let j = 0; j < conc && i + j < n; j++) {
      insert.run([body]);
      lines += `${i + j}\t${body}\n`;
    }
    mem.run('COMMIT');
    writeSync(fd, lines);
    const previous = inFlight;
    inFlight = previous.then(() => sync(fd));
    await new Promise((r) => setImmediate(r));
  }
  await inFlight;
  const took = performance.now() - s0;
  loop.disable();
  const used = process.cpuUsage(c0);
  console.log(
    `sql.js + journal: ${n} writes in ${Math.round(took)} ms: ${Math.round(n / (took / 1000))}/s, main-thread cpu ${((used.user + used.system) / n).toFixed(1)} us/write, ` +
      `longest stall ${(loop.max / 1e6).toFixed(1)} ms`,
  );
  closeSync(fd);
}

// A writer killed with SIGKILL inside a write transaction, then the store opened again.
const file = path.join(dir, 'crash.db');
const child = spawn(
  process.execPath,
  [
    '-e',
    `const s=require(${JSON.stringify(moduleName)});const d=new s.Database(${JSON.stringify(file)});d.exec('CREATE TABLE t(x);BEGIN IMMEDIATE;INSERT INTO t VALUES(1)');console.log('in');setInterval(()=>{},1000)`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
await new Promise((r) => child.stdout.once('data', r));
child.kill('SIGKILL');
await new Promise((r) => child.once('exit', r));
let reopened: string;
try {
  const again = new Database(file);
  again.exec('CREATE TABLE IF NOT EXISTS t(x); INSERT INTO t VALUES(2)');
  again.close();
  reopened = 'writes';
} catch (err) {
  reopened = `refuses: ${(err as Error).message}`;
}
console.log(
  `after kill -9 inside a transaction: files ${readdirSync(dir)
    .filter((f) => f.startsWith('crash.db'))
    .join(', ')}; a new writer ${reopened}`,
);
rmSync(dir, { recursive: true, force: true });
