// The sqlite schema as versioned migrations. `meta` holds `schema_version` (the last migration
// applied) and `journal_gen` (the journal generation whose records the database file does not hold).
// Migrations run at open, before the journal is replayed; they are not journaled, so they must be
// deterministic: replaying them over the same file gives the same database.

import type { Database, SqlJsStatic } from 'sql.js';
import { VERSION } from '../../version.js';
import { newerSchemaMessage, StoreError } from '../types.js';
import type { AnyPart } from '../part.js';
import { KV_SQLITE_DDL } from '../kv/sqlite.js';

interface Migration {
  version: number;
  sql: string;
  /** Fills the new tables from existing rows (deterministic, like the SQL). */
  fill?: (db: Database) => void;
}

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE rooms (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        removed INTEGER NOT NULL DEFAULT 0,
        body TEXT NOT NULL
      );
      CREATE TABLE agents (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        credential_key TEXT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX agents_by_credential ON agents (credential_key, seq);
      CREATE TABLE messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        conv TEXT NOT NULL,
        event_id TEXT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX messages_by_conv ON messages (conv, seq);
      CREATE TABLE threads (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        room_id TEXT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX threads_by_room ON threads (room_id, seq);
      CREATE TABLE dms (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        body TEXT NOT NULL
      );
      CREATE TABLE artifacts (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL,
        target_kind TEXT NOT NULL,
        room_id TEXT,
        thread_id TEXT,
        dm_id TEXT,
        body TEXT NOT NULL
      );
      CREATE INDEX artifacts_by_id ON artifacts (id, seq);
      CREATE INDEX artifacts_by_room ON artifacts (room_id, seq);
      CREATE INDEX artifacts_by_thread ON artifacts (thread_id, seq);
      CREATE INDEX artifacts_by_dm ON artifacts (dm_id, seq);
      -- body is the event without its message when message_id is set: the message is read back
      -- from the messages table rather than stored twice.
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY,
        message_id TEXT,
        body TEXT NOT NULL
      );
    `,
  },
  // Full-text search made its tables here; they moved to the search worker's own file (version 16).
  { version: 2, sql: '' },
  {
    version: 3,
    // Pairing outbox state (was a file beside the database).
    sql: `CREATE TABLE pairings (id TEXT PRIMARY KEY, body TEXT NOT NULL);`,
  },
  {
    version: 4,
    // The search index's upkeep mark was set here (see version 16).
    sql: '',
  },
  {
    version: 5,
    // #27 part 1 (MCP over HTTP): each agent's wait cursor and read markers (AgentReadState).
    sql: `CREATE TABLE IF NOT EXISTS agent_read_state (agent_id TEXT PRIMARY KEY, body TEXT NOT NULL);`,
  },
  {
    version: 6,
    // Moved to a stored concern's own migrations (part.ts): empty, so the numbers hold.
    sql: '',
  },
  {
    version: 7,
    // Its table moved to a stored concern's own migrations (part.ts). The index of message events by
    // message id stays: the core's messageSeqs (a message's event seq) reads through it.
    sql: `
      CREATE INDEX IF NOT EXISTS events_by_message ON events (message_id) WHERE message_id IS NOT NULL;
    `,
  },
  {
    version: 8,
    // Moved to a stored concern's own migrations (part.ts): empty, so the numbers hold.
    sql: '',
  },
  {
    version: 9,
    // Moved to a stored concern's own migrations (part.ts): empty, so the numbers hold.
    sql: '',
  },
  {
    version: 10,
    // Moved to a stored concern's own migrations (part.ts): empty, so the numbers hold.
    sql: '',
  },
  {
    version: 11,
    // #27 part 2, OAuth state in the store: the expiring key/value table. The text lives with the
    // table (src/store/kv/sqlite.ts); this migration's place is here.
    sql: KV_SQLITE_DDL,
  },
  {
    version: 12,
    // Moved to a stored concern's own migrations (part.ts): empty, so the numbers hold.
    sql: '',
  },
  {
    version: 13,
    // The members of each active room and the participants of each DM, one row each, so the unread
    // counts read the caller's conversations through an index instead of every room's body
    // (issue 38; Postgres has GIN indexes on the arrays). Kept by room.put and dm.put (apply.ts).
    sql: `
      CREATE TABLE IF NOT EXISTS conv_members (
        member TEXT NOT NULL,
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        PRIMARY KEY (member, kind, id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS conv_members_by_conv ON conv_members (kind, id);
      INSERT OR IGNORE INTO conv_members (member, kind, id)
        SELECT j.value, 'room', r.id FROM rooms r, json_each(r.body, '$.members') j WHERE r.removed = 0;
      INSERT OR IGNORE INTO conv_members (member, kind, id)
        SELECT j.value, 'dm', d.id FROM dms d, json_each(d.body, '$.participant_ids') j;
    `,
  },
  {
    version: 14,
    // #40 parts 1 and 2, edits and deletes. message_versions: an edited message's earlier versions
    // (the MessageVersion as JSON), kept by message.version and dropped by message.forget (apply.ts).
    // artifacts_by_message: an edit replaces a message's artifacts and a delete drops them, found
    // through this index on the message id their body holds (apply.ts DELETE_ARTIFACTS names the same
    // expression) rather than by reading every artifact row. An index on the expression, not a
    // new column: existing rows need no fill, inserts no change, and the migration may run again.
    sql: `
      CREATE TABLE IF NOT EXISTS message_versions (
        message_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (message_id, version)
      );
      CREATE INDEX IF NOT EXISTS artifacts_by_message ON artifacts (json_extract(body, '$.message_id'));
    `,
  },
  {
    version: 15,
    // #40 part 3, redaction: the index a rebuild filled was made here (see version 16).
    sql: '',
  },
  {
    version: 16,
    // #43 part 1: the full-text index left this database for the search worker's own file
    // (search-index.ts), built from the messages at the first open. Its tables go (zeroed, with
    // secure_delete); a rebuild a redaction left under way is owed to the new file. The epoch names
    // this store to its search file (one of another store is built again). It is random, so a
    // checkpoint worker that migrates svc.db apart (no page tracking) may record another one: the
    // search file is then built again once, which costs time and nothing else.
    sql: `
      DROP TABLE IF EXISTS search_index;
      DROP TABLE IF EXISTS search_scope;
      DROP TABLE IF EXISTS search_next;
      DROP TABLE IF EXISTS search_old;
      DELETE FROM meta WHERE key = 'search_indexed_seq';
      UPDATE meta SET key = 'search_rebuild', value = '1' WHERE key = 'search_rebuild_seq';
      INSERT OR IGNORE INTO meta (key, value) VALUES ('search_epoch', lower(hex(randomblob(16))));
    `,
  },
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

function readMeta(db: Database, key: string): string | undefined {
  const rows = db.exec('SELECT value FROM meta WHERE key = ?', [key]);
  const v = rows[0]?.values[0]?.[0];
  return v === undefined || v === null ? undefined : String(v);
}

function writeMeta(db: Database, key: string, value: string): void {
  db.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
}

/**
 * The names of the parts whose tables a database holds (`part:<name>` in meta). A store keeps
 * applying what it holds: its journal may carry their effects, whatever parts it is opened for.
 */
export function recordedParts(db: Database): Set<string> {
  const has = db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  if (has.length === 0) return new Set();
  const rows = db.exec("SELECT substr(key, 6) FROM meta WHERE key LIKE 'part:%'")[0]?.values ?? [];
  return new Set(rows.map((r) => String(r[0])));
}

/** The schema version recorded in a database (0: none yet) and the svc version that last migrated it. */
export function readSchema(db: Database): { version: number; migratedBy?: string } {
  const has = db.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
  if (has.length === 0) return { version: 0 };
  const version = Number(readMeta(db, 'schema_version') ?? 0);
  const by = readMeta(db, 'migrated_by');
  return { version, ...(by ? { migratedBy: by } : {}) };
}

/** What an open's migration changed: the core's schema, and the parts' tables. */
export interface Migrated {
  core: boolean;
  parts: boolean;
}

/**
 * Brings a database to SCHEMA_VERSION, and the tables of each of `parts` to the part's last
 * version (`part:<name>` in meta). A database of a newer schema is refused before anything is
 * touched. Throws StoreError('corrupt').
 */
export function migrate(db: Database, where: string, parts: readonly AnyPart[]): Migrated {
  const found = readSchema(db);
  const current = found.version;
  if (!Number.isInteger(current) || current > SCHEMA_VERSION) {
    throw new StoreError('corrupt', newerSchemaMessage(where, current, SCHEMA_VERSION, found.migratedBy, VERSION));
  }
  db.run('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  const pending = MIGRATIONS.filter((m) => m.version > current);
  const partsPending = parts.map((p) => ({ p, from: Number(readMeta(db, `part:${p.name}`) ?? 0) }));
  // A part newer than this svc knows is refused below, as a newer core schema is above.
  const partsChange = partsPending.some((x) => x.from !== x.p.sqlite.migrations.length);
  if (pending.length === 0 && !partsChange) return { core: false, parts: false };
  db.run('BEGIN');
  try {
    for (const m of pending) {
      db.exec(m.sql);
      m.fill?.(db);
      writeMeta(db, 'schema_version', String(m.version));
    }
    // Which svc wrote this schema: named when a later, older svc refuses the store.
    if (pending.length > 0) writeMeta(db, 'migrated_by', VERSION);
    if (readMeta(db, 'journal_gen') === undefined) writeMeta(db, 'journal_gen', '1');
    for (const { p } of partsPending) migratePart(db, p);
    db.run('COMMIT');
  } catch (err) {
    db.run('ROLLBACK');
    throw new StoreError('corrupt', `schema migration failed: ${(err as Error).message}`);
  }
  return { core: pending.length > 0, parts: partsChange };
}

/** Brings a part's tables to its last version, inside the caller's transaction. */
export function migratePart(db: Database, p: AnyPart): void {
  const from = Number(readMeta(db, `part:${p.name}`) ?? 0);
  const steps = p.sqlite.migrations;
  if (from > steps.length) throw new Error(`the ${p.name} tables have version ${from}, newer than svc ${VERSION} knows (${steps.length})`);
  for (let v = from; v < steps.length; v++) {
    const step = steps[v]!;
    db.exec(typeof step === 'string' ? step : step.sql);
    if (typeof step !== 'string') step.fill?.(db);
  }
  if (from < steps.length) writeMeta(db, `part:${p.name}`, String(steps.length));
}

/** The journal generation recorded in the database. */
export function readJournalGen(db: Database): number {
  const gen = Number(readMeta(db, 'journal_gen') ?? 1);
  if (!Number.isInteger(gen) || gen < 0) throw new StoreError('corrupt', `bad journal_gen in meta`);
  return gen;
}

/** Records the journal generation (outside the journal: checkpoints only). */
export function writeJournalGen(db: Database, gen: number): void {
  writeMeta(db, 'journal_gen', String(gen));
}

/** Per-connection settings; the database lives in memory, sqlite's own journal can too. */
export function configure(db: Database): void {
  db.run('PRAGMA journal_mode = MEMORY');
  db.run('PRAGMA synchronous = OFF');
  db.run('PRAGMA temp_store = MEMORY');
  // One connection owns the file: without this every autocommit read re-checks for a hot journal
  // (a failing MEMFS lookup) and re-validates the page cache, ~35 us per point read in sql.js.
  db.run('PRAGMA locking_mode = EXCLUSIVE');
  // Pages not written since the open are read from svc.db on demand (page-hook.ts), a system call
  // each: a 32 MiB cache keeps the B-tree's inner pages and recent history in memory. (64 MiB until
  // 2026-12-01: on the 1M store's bench the same history p99 and write cost, 33 MB more resident.)
  db.run('PRAGMA cache_size = -32768');
  // What a delete, an edit or a redaction frees is zeroed, in the page and in the free list, so
  // that a redacted message's bytes leave svc.db with the next checkpoint (scrub.ts).
  db.run('PRAGMA secure_delete = ON');
}

/** A new database with the current schema and the tables of `parts`, as a file image. */
export function emptyImage(SQL: SqlJsStatic, parts: readonly AnyPart[]): Uint8Array {
  const db = new SQL.Database();
  try {
    configure(db);
    migrate(db, 'a new database', parts);
    return db.export();
  } finally {
    db.close();
  }
}
