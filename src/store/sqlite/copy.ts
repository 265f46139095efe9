// Copies a whole network from any store (a Postgres schema, typically) into a new sqlite store: the
// database is built in memory with the same statements live writes use (apply.ts) and written as `svc.db` in one durable rename, so the target is complete or absent. What
// is read, and in which order, is network-copy.ts. The whole database is in memory until then, as
// it is when the store runs. Its search database is built by the store's search worker at its first
// open (search-index.ts).

import fs from 'node:fs';
import path from 'node:path';
import {
  fillSink,
  TargetNotEmpty,
  type CopyCounts,
  type CopyNetworkOptions,
  type NetworkFill,
  type NetworkSink,
  type NetworkSource,
} from '../network-copy.js';
import { applyOps, type JournalOp } from './apply.js';
import { Db } from './db.js';
import { writeFileDurably } from './engine/durable-file.js';
import { loadSql } from './engine/image.js';
import { listJournals } from './engine/journal.js';
import { configure, migrate } from './schema.js';
import { copiedSeqs } from './retention.js';
import { ALL_PARTS } from '../concerns.js';
import { kvCopyEffects } from '../kv/sqlite.js';

export interface SqliteCopyOptions extends CopyNetworkOptions {
  /** The new store's database file (`svc.db`); its folder is created when missing. */
  file: string;
}

/** Copies `source` into a new sqlite store at `o.file`; returns what was copied. */
export async function copyToSqlite(source: NetworkSource | NetworkFill, o: SqliteCopyOptions): Promise<CopyCounts> {
  refuseExisting(o.file);
  const SQL = await loadSql();
  const db = new Db(new SQL.Database());
  try {
    configure(db.raw);
    migrate(db.raw, o.file, ALL_PARTS);
    db.run('BEGIN');
    const counts = await fillSink(source, sinkOf(db), o);
    db.run('COMMIT');
    const image = db.raw.export();
    // Checked again: another copy or a server may have created the store meanwhile.
    refuseExisting(o.file);
    await fs.promises.mkdir(path.dirname(o.file), { recursive: true });
    await writeFileDurably(o.file, image);
    return counts;
  } finally {
    db.close();
  }
}

/** A store exists at `file` when its database, a journal or a checkpoint's redo file does. */
function refuseExisting(file: string): void {
  const found = [file, `${file}.pages`, ...listJournals(file).map((j) => j.path)].filter((f) => fs.existsSync(f));
  if (found.length > 0)
    throw new TargetNotEmpty(
      'path',
      `${found.map((f) => path.basename(f)).join(', ')} in ${path.dirname(file)}`,
      'a path where no store exists',
    );
}

function sinkOf(db: Db): NetworkSink {
  let events = 0;
  return {
    async events(page) {
      events += page.events.length;
      const ops: JournalOp[] = [];
      const json: string[] = [];
      for (const m of page.messages) {
        ops.push({ op: 'message.insert', record: m.record });
        json.push(m.body);
      }
      for (const e of page.events) {
        ops.push({ op: 'event.append', seq: e.seq, event: e.event, ...(e.message_id ? { message_id: e.message_id } : {}) });
        json.push(e.body);
      }
      for (const v of page.versions) ops.push({ op: 'message.version', ...v });
      ops.push(...page.parts);
      applyOps(db.run, ops, ALL_PARTS, (i) => json[i]);
    },
    async records(r) {
      applyOps(
        db.run,
        [
          ...r.rooms.map((room) => ({ op: 'room.put' as const, room })),
          ...r.agents.map((agent) => ({ op: 'agent.put' as const, agent })),
          ...r.threads.map((thread) => ({ op: 'thread.put' as const, thread })),
          ...r.dms.map((dm) => ({ op: 'dm.put' as const, dm })),
          ...r.artifacts.map((artifact) => ({ op: 'artifact.insert' as const, artifact })),
          ...r.pairings.map((p) => ({ op: 'pairing.put' as const, ...p })),
          ...r.readStates.map((x) => ({ op: 'read_state.put' as const, ...x })),
          ...kvCopyEffects(r.kv ?? []),
          ...r.parts,
        ],
        ALL_PARTS,
      );
      copiedSeqs(db.run, r.last_seq, events);
    },
  };
}
