// Reads rooms from a store that no server has open, without writing anything: `svc invite accept`
// asks this when no server of the config runs. sqlite: the database file is loaded into memory
// (never opened in place) and the journals it does not cover are replayed there; nothing on disk
// is migrated, truncated or removed, and no lock is taken. Postgres: one read-only transaction on
// the rooms table, no migration. Memory: nothing persists, so no room exists. A running server may
// checkpoint while the sqlite files are read: the read is retried until the folder held still.

import { ALL_PARTS } from './concerns.js';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import { type Config, DEFAULT_STORE_SCHEMA } from '../config/types.js';
import type { RoomRecord } from './types.js';

/** Each id's live room record in the store, or undefined when the store holds no such room. */
export async function readStoredRooms(cfg: Config['store'], ids: readonly string[]): Promise<Map<string, RoomRecord | undefined>> {
  if (cfg.backend === 'memory') return new Map(ids.map((id) => [id, undefined]));
  const rooms = cfg.backend === 'postgres' ? await postgresRooms(cfg, ids) : await sqliteRooms(path.resolve(cfg.path), ids);
  return new Map(ids.map((id) => [id, rooms.find((r) => r.id === id && !r.removed_at)]));
}

async function sqliteRooms(file: string, ids: readonly string[]): Promise<RoomRecord[]> {
  for (let attempt = 1; ; attempt++) {
    const before = folderState(file);
    // `<db>.pages` exists while a checkpoint writes pages into svc.db in place: wait it out.
    const midCheckpoint = existsSync(`${file}.pages`);
    if (!midCheckpoint) {
      const rooms = await sqliteRoomsOnce(file, ids);
      if (folderState(file) === before) return rooms;
    }
    if (attempt === 10) throw new Error(`${file} kept changing while it was read (a checkpoint of a running server?)`);
    await sleep(100 * attempt);
  }
}

/** The database file and its journals, by name, size and mtime: changes when a checkpoint runs. */
function folderState(file: string): string {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n === base || n.startsWith(`${base}.`));
  } catch {
    return '';
  }
  return names
    .sort()
    .map((n) => {
      try {
        const st = statSync(path.join(dir, n));
        return n === base ? `${n}:${st.size}:${st.mtimeMs}` : n; // journals only grow: their names are what a checkpoint changes
      } catch {
        return `${n}:gone`;
      }
    })
    .join('|');
}

async function sqliteRoomsOnce(file: string, ids: readonly string[]): Promise<RoomRecord[]> {
  const { loadSql } = await import('./sqlite/engine/image.js');
  const { Db } = await import('./sqlite/db.js');
  const { configure, migrate, readJournalGen } = await import('./sqlite/schema.js');
  const { listJournals } = await import('./sqlite/engine/journal.js');
  const { judgeJournal, damagedJournalError, replayAll } = await import('./sqlite/engine/recovery.js');
  const { SqliteQueries } = await import('./sqlite/queries.js');
  const SQL = await loadSql();
  // A copy in memory: sql.js never writes back unless asked to export.
  const db = new Db(new SQL.Database(existsSync(file) ? readFileSync(file) : null));
  try {
    configure(db.raw);
    // In memory only: an older file reads through the current schema. Every part: the journals may
    // hold any of their records.
    migrate(db.raw, file, ALL_PARTS);
    const gen = readJournalGen(db.raw);
    for (const j of listJournals(file)) {
      if (j.gen < gen) continue;
      const v = judgeJournal(j.path);
      if (v.damage) throw damagedJournalError(j.path, v.damage);
      // A torn tail is a write never acknowledged: its valid records are all there is.
      replayAll(db, v.records, j.path, [...ALL_PARTS]);
    }
    const reads = new SqliteQueries(db);
    return ids.map((id) => reads.room(id)).filter((r): r is RoomRecord => r !== undefined);
  } finally {
    db.close();
  }
}

async function postgresRooms(cfg: Config['store'], ids: readonly string[]): Promise<RoomRecord[]> {
  const { default: pg } = await import('pg');
  const { ROOM_COLS, roomOf } = await import('./postgres/rows.js');
  const { tablesOf } = await import('./postgres/tables.js');
  const client = new pg.Client({ connectionString: cfg.url ?? '', connectionTimeoutMillis: 5000, application_name: 'svc invite accept' });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('BEGIN READ ONLY');
    const T = tablesOf(cfg.schema ?? DEFAULT_STORE_SCHEMA);
    try {
      const res = await client.query(`SELECT ${ROOM_COLS} FROM ${T.rooms} WHERE id = ANY($1::text[])`, [ids]);
      return res.rows.map(roomOf);
    } catch (err) {
      // No rooms table yet: no server ever started on this schema, so it holds no room.
      if ((err as { code?: string }).code === '42P01') return [];
      throw err;
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
    }
  } finally {
    await client.end().catch(() => undefined);
  }
}
