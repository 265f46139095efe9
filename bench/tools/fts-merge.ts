// How the search index's segment merges cost under many small commits: builds a table exactly like
// the search worker's (search-db.ts) in sql.js, one transaction per "turn" of a few documents, and reports
// the longest / p99 / p999 turn (inserts + COMMIT) and upkeep step in CPU time of this process (so
// another job's preemption does not count), and CPU per document, for one
// design of index upkeep. Words come from indexText over synthetic messages with a Zipf-shaped
// vocabulary (plus ids and numbers, as real chat has), so segments have realistic posting lists.
//
//   node --import tsx bench/tools/fts-merge.ts DESIGN [docs=300000] [docs-per-turn=25]
//
// DESIGN: default | automerge=N | merge=X,Y (automerge off, one bounded step after each turn)
//         | defer=B,X,Y (index B documents at once, then merge=X,Y steps)
//         | cap=B,X,Y,M (as defer, but no merge of a level holding more than M leaf blocks)
//         | upkeep=B[,M] (the store's: B documents at once, then its mergeStep: merge=32,8 with
//           segments past M leaf blocks parked unmerged, as the search worker runs it)

import type { Database } from 'sql.js';
import { indexText } from '../../src/protocol/search-text.js';
import { loadSql } from '../../src/store/sqlite/engine/image.js';
import { configure } from '../../src/store/sqlite/schema.js';
import { Db } from '../../src/store/sqlite/db.js';
import { SEGMENT_LIMIT, mergeStep } from '../../src/store/sqlite/search-merge.js';
import { quantile } from '../lib/stats.js';

const design = process.argv[2] ?? 'default';
const docs = Number(process.argv[3] ?? 300_000);
const perTurn = Number(process.argv[4] ?? 25);
/** The index table as the search worker makes it (search-db.ts). */
const SEARCH_SCHEMA = 'CREATE VIRTUAL TABLE search_index USING fts4(content="", words, order=DESC, matchinfo=fts3)';
/** Turns and steps of the first documents are left out of the percentiles: wasm tier-up and V8 warm-up, not merges. */
const WARM = Math.min(10_000, docs / 10);

// A deterministic generator, so every design indexes the same text.
let seed = 42;
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x80000000;
};
const VOCAB = 50_000;
const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'ta', 'shi', 'vo', 'pe', 'dra', 'ix', 'on', 'el', 'bu', 'gor', 'sa'];
const vocab: string[] = [];
for (let i = 0; i < VOCAB; i++) {
  let w = '';
  let n = i + 1;
  while (n > 0) {
    w += syllables[n % syllables.length];
    n = Math.floor(n / syllables.length);
  }
  vocab.push(w);
}
// Zipf(1): word rank r with weight 1/r, drawn through the cumulative table.
const cum = new Float64Array(VOCAB);
let total = 0;
for (let i = 0; i < VOCAB; i++) cum[i] = total += 1 / (i + 1);
const word = () => {
  const x = rand() * total;
  let lo = 0;
  let hi = VOCAB - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cum[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return vocab[lo]!;
};
function text(i: number): string {
  const n = 5 + Math.floor(rand() * 30);
  const out: string[] = [];
  for (let k = 0; k < n; k++) out.push(word());
  // Chat carries ids, numbers and links: words that are (nearly) unique to one message.
  if (i % 3 === 0) out.push(`build ${i} ticket ${Math.floor(rand() * 1e6)}`);
  if (i % 10 === 0) out.push(`https://example.org/pr/${i}`);
  return out.join(' ');
}

interface Upkeep {
  /** Per turn, after its COMMIT: runs bounded work in its own transaction. */
  step(db: Database): void;
}

/** Segments per level with their sizes in blocks, for tracing. */
function segdir(d: Database): string {
  const rows =
    d.exec('SELECT level, count(*), sum(leaves_end_block - start_block + 1) FROM search_index_segdir GROUP BY level ORDER BY level')[0]
      ?.values ?? [];
  return rows.map((r) => `L${r[0]}:${r[1]}(${r[2]})`).join(' ');
}

function run(db: Database, sql: string): void {
  db.run(sql);
}

const SQL = await loadSql();
// The store opens its image with zeroed headroom (image.ts) so that sql.js does not grow (copy)
// its in-memory file under the writes; so does this, or the copies would be what is measured.
const empty = new SQL.Database();
empty.exec(SEARCH_SCHEMA);
const image = empty.export();
empty.close();
const padded = Buffer.alloc(image.length + 512 * 1024 * 1024);
padded.set(image);
const db = new SQL.Database(padded);
configure(db);
const insert = db.prepare('INSERT INTO search_index (docid, words) VALUES (?, CAST(? AS TEXT))');

let upkeep: Upkeep | undefined;
let batch = 0;
let mergeX = 0;
let mergeY = 0;
let capBlocks = Infinity;
if (design.startsWith('automerge=')) run(db, `INSERT INTO search_index(search_index) VALUES('${design}')`);
else if (design.startsWith('merge=')) [mergeX, mergeY] = design.slice(6).split(',').map(Number) as [number, number];
else if (design.startsWith('defer=')) [batch, mergeX, mergeY] = design.slice(6).split(',').map(Number) as [number, number, number];
else if (design.startsWith('upkeep=')) {
  const [b, m] = design.slice(7).split(',').map(Number) as [number, number | undefined];
  batch = b;
  if (m !== undefined) SEGMENT_LIMIT.blocks = m;
} else if (design.startsWith('cap='))
  [batch, mergeX, mergeY, capBlocks] = design.slice(4).split(',').map(Number) as [number, number, number, number];
else if (design !== 'default') throw new Error(`unknown design ${design}`);
if (design.startsWith('upkeep=')) {
  const wrapped = new Db(db);
  upkeep = {
    step(d) {
      d.run('BEGIN');
      mergeStep(wrapped);
      d.run('COMMIT');
    },
  };
} else if (mergeX > 0) {
  const merge = `INSERT INTO search_index(search_index) VALUES('merge=${mergeX},${mergeY}')`;
  upkeep = {
    step(d) {
      if (capBlocks < Infinity) {
        // The level FTS4 would merge next: the lowest one holding mergeY segments or more.
        const r = d.exec(
          `SELECT sum(leaves_end_block - start_block + 1) FROM search_index_segdir GROUP BY level HAVING count(*) >= ${mergeY} ORDER BY level LIMIT 1`,
        )[0]?.values[0];
        if (!r || Number(r[0]) > capBlocks) return;
      }
      d.run('BEGIN');
      d.run(merge);
      d.run('COMMIT');
    },
  };
}

const turns: number[] = [];
const steps: number[] = [];
let pending: [number, Uint8Array][] = [];
let maxIdx = 0;
/** The longest turn or step in wall time (includes preemption by other processes). */
let wallMax = 0;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
let doc = 1;
while (doc <= docs) {
  const items: [number, Uint8Array][] = [];
  for (let k = 0; k < perTurn && doc <= docs; k++, doc++) {
    items.push([doc, Buffer.from(indexText({ parts: [{ kind: 'text', text: text(doc) }] }), 'utf8')]);
  }
  const c = process.cpuUsage();
  const w = performance.now();
  const cpuMs = () => {
    if (doc > WARM) wallMax = Math.max(wallMax, performance.now() - w);
    const d = process.cpuUsage(c);
    return (d.user + d.system) / 1000;
  };
  if (batch === 0) {
    db.run('BEGIN');
    for (const [id, w] of items) insert.run([id, w]);
    db.run('COMMIT');
    if (doc > WARM) turns.push(cpuMs());
    else cpuMs();
  } else {
    // Deferred: the turn only queues; an idle tick indexes a whole batch in one transaction.
    pending.push(...items);
    if (pending.length >= batch) {
      db.run('BEGIN');
      for (const [id, w] of pending) insert.run([id, w]);
      db.run('COMMIT');
      pending = [];
      if (doc > WARM) turns.push(cpuMs());
      else cpuMs();
    }
  }
  if (upkeep) {
    const before = process.env.TRACE ? segdir(db) : '';
    const c = process.cpuUsage();
    const w = performance.now();
    upkeep.step(db);
    if (doc > WARM) wallMax = Math.max(wallMax, performance.now() - w);
    const d = process.cpuUsage(c);
    const stepMs = (d.user + d.system) / 1000;
    if (doc > WARM) steps.push(stepMs);
    if (process.env.TRACE && stepMs > Number(process.env.TRACE))
      console.error(`doc ${doc}: step ${stepMs.toFixed(1)} ms; before ${before}; after ${segdir(db)}`);
  }
  if ((doc & 0x3fff) < perTurn) {
    const m = Number(db.exec('SELECT max(idx) FROM search_index_segdir')[0]?.values[0]?.[0] ?? 0);
    maxIdx = Math.max(maxIdx, m);
  }
}
const ms = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const segs = db.exec('SELECT level, count(*) FROM search_index_segdir GROUP BY level ORDER BY level')[0]?.values ?? [];
const q = db.prepare('SELECT docid FROM search_index WHERE search_index MATCH ? ORDER BY docid DESC LIMIT 20');
const qms: number[] = [];
for (let i = 0; i < 200; i++) {
  const w = i % 2 === 0 ? vocab[100 + i]! : `${vocab[i]!.slice(0, 3)}*`;
  const s = performance.now();
  q.bind([w]);
  while (q.step()) q.get();
  q.reset();
  qms.push(performance.now() - s);
}
const sorted = (a: number[]) => [...a].sort((x, y) => x - y);
const f = (x: number) => x.toFixed(2);
const tt = sorted(turns);
const ss = sorted(steps);
const qq = sorted(qms);
const bytes = Number(db.exec('PRAGMA page_count')[0]!.values[0]![0]) * Number(db.exec('PRAGMA page_size')[0]!.values[0]![0]);
console.log(
  JSON.stringify({
    design,
    docs,
    per_turn: perTurn,
    commit_ms: { max: f(tt.at(-1) ?? 0), p999: f(quantile(tt, 0.999)), p99: f(quantile(tt, 0.99)), p50: f(quantile(tt, 0.5)) },
    step_ms: ss.length ? { max: f(ss.at(-1)!), p999: f(quantile(ss, 0.999)), p99: f(quantile(ss, 0.99)) } : null,
    wall_max_ms: f(wallMax),
    us_per_doc: {
      fts: f(((turns.reduce((a, b) => a + b, 0) + steps.reduce((a, b) => a + b, 0)) * 1000) / (docs - WARM)),
      cpu_all: f((cpu.user + cpu.system) / docs),
      wall_all: f((ms * 1000) / docs),
    },
    segments: segs.map((r) => `L${r[0]}:${r[1]}`).join(' '),
    max_idx_seen: maxIdx,
    db_mb: (bytes / 1048576).toFixed(1),
    query_ms: { p50: f(quantile(qq, 0.5)), max: f(qq.at(-1)!) },
  }),
);
insert.free();
q.free();
db.close();
