// The sqlite store's reads over a database image opened apart from the store (an export reads a
// checkpointed `svc.db` in a worker thread while the store goes on writing: #40 part 5). Read only:
// nothing here writes, and the image is dropped when the reader is done.

import type { SqlJsStatic } from 'sql.js';
import type { AnyPart } from '../part.js';
import fs from 'node:fs';
import { StoreError, type NetworkSource, type StoreSnapshot, type StoreStats } from '../types.js';
import { pagesPath } from './engine/page-file.js';
import { SqliteKv } from '../kv/sqlite.js';
import { Db } from './db.js';
import { SqliteQueries } from './queries.js';
import { SqliteReadMethods } from './read-methods.js';
import { lastEventSeq, purgedEvents } from './retention.js';

/** The snapshot of a held, just checkpointed `svc.db` (SqliteStore.snapshot); refused while a checkpoint is unfinished. */
export function heldImage(file: string, parts: string[]): StoreSnapshot {
  if (fs.existsSync(pagesPath(file))) throw new StoreError('unavailable', 'a checkpoint is unfinished (svc.db.pages); retry shortly');
  return { kind: 'image', file, parts };
}

export class ImageReads extends SqliteReadMethods implements NetworkSource {
  readonly kv: SqliteKv;

  constructor(SQL: SqlJsStatic, image: Uint8Array, parts: AnyPart[]) {
    const db = new Db(new SQL.Database(image));
    super(db, new SqliteQueries(db), parts);
    this.kv = new SqliteKv({ db, writeEffects: () => Promise.reject(new Error('a database image is read only')) });
  }

  async stats(): Promise<StoreStats> {
    const last = lastEventSeq(this.db);
    return {
      backend: 'sqlite',
      messages: Number(this.db.one('SELECT count(*) FROM messages')![0]),
      events: last - purgedEvents(this.db),
      last_event_seq: last,
    };
  }

  async lastEventSeq(): Promise<number> {
    return lastEventSeq(this.db);
  }

  close(): void {
    this.db.close();
  }
}
