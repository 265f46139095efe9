// Builds the next `svc.db` off the main thread: the last `svc.db` plus the journal generations it
// does not hold (replayed with the same applyOps as start-up), exported and swapped in atomically.
// sql.js keeps the database in memory and its export copies all of it synchronously (~1.5 ms/MB),
// which on the main thread would stall every request for a second at a million messages.

import fs from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import type { SqlValue, Statement } from 'sql.js';
import { applyOps, type JournalRecord } from '../apply.js';
import { listJournals } from './journal.js';
import { damagedJournalError, judgeJournal } from './recovery.js';
import { loadSql } from './image.js';
import { writeFileDurably } from './durable-file.js';
import { configure, migrate, readJournalGen, writeJournalGen } from '../schema.js';
import { partsNamed } from '../../concerns.js';

/** What to build: `file` from its journals up to generation `upto`, recorded as covering all before `next`. */
export interface CheckpointJob {
  file: string;
  upto: number;
  next: number;
  /** The names of the store's parts (part.ts): their tables and effects are in the image and journals. */
  parts: string[];
}

export type CheckpointReply = { ok: true; bytes: number } | { ok: false; error: string };

const CHUNK = 1000;

/** A full GC in this worker, if V8 allows one (the worker is short-lived and memory-bound). */
function collectGarbage(): void {
  try {
    v8.setFlagsFromString('--expose-gc');
    (vm.runInNewContext('gc') as () => void)();
  } catch {
    // Without it the copy is freed when V8 gets to it.
  }
}

/** Builds and writes the checkpoint; returns its size in bytes. */
export async function buildCheckpoint(job: CheckpointJob): Promise<number> {
  const SQL = await loadSql();
  let image: Buffer | undefined;
  try {
    image = await fs.promises.readFile(job.file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const db = image ? new SQL.Database(image) : new SQL.Database();
  image = undefined;
  // sql.js copied the image: drop that copy now rather than carry it through the export.
  collectGarbage();
  const stmts = new Map<string, Statement>();
  const run = (sql: string, params: SqlValue[] = []): void => {
    let s = stmts.get(sql);
    if (!s) {
      s = db.prepare(sql);
      stmts.set(sql, s);
    }
    try {
      s.bind(params);
      s.step();
    } finally {
      s.reset();
    }
  };
  try {
    configure(db);
    const parts = partsNamed(job.parts);
    migrate(db, job.file, parts);
    const from = readJournalGen(db);
    for (const j of listJournals(job.file)) {
      if (j.gen < from || j.gen > job.upto) continue;
      // Closed generations: a torn tail there was never acknowledged, the valid records are all. A
      // damaged record with intact ones after it fails the checkpoint, so the journal is kept.
      const v = judgeJournal(j.path);
      if (v.damage) throw damagedJournalError(j.path, v.damage);
      const { records } = v;
      for (let start = 0; start < records.length; start += CHUNK) {
        run('BEGIN');
        try {
          for (let i = start; i < Math.min(records.length, start + CHUNK); i++) {
            const ops = (records[i] as Partial<JournalRecord> | null)?.ops;
            if (!Array.isArray(ops)) throw new Error(`${j.path} record ${i + 1}: not a write batch`);
            applyOps(run, ops, parts);
          }
          run('COMMIT');
        } catch (err) {
          run('ROLLBACK');
          throw err;
        }
      }
    }
    writeJournalGen(db, job.next);
    for (const s of stmts.values()) s.free();
    stmts.clear();
    const out = db.export();
    await writeFileDurably(job.file, out);
    return out.length;
  } finally {
    db.close();
  }
}

if (parentPort && workerData) {
  const port = parentPort;
  buildCheckpoint(workerData as CheckpointJob).then(
    (bytes) => port.postMessage({ ok: true, bytes } satisfies CheckpointReply),
    (err: unknown) => port.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) } satisfies CheckpointReply),
  );
}
