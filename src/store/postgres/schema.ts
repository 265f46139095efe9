// The Postgres schema as versioned migrations, applied at start inside one transaction that holds
// an advisory lock keyed by the schema name: instances starting together migrate once, the others
// wait and find nothing left to do. Timestamps stay ISO text exactly as the records carry them;
// message JSON is kept whole (text) so a read gives back the bytes that were written.

import type pg from 'pg';
import { VERSION } from '../../version.js';
import { newerSchemaMessage, StoreError } from '../types.js';
import type { AnyPart } from '../part.js';
import { KV_POSTGRES_DDL } from '../kv/postgres.js';

interface Migration {
  version: number;
  /** Statements with `S.` standing for the quoted schema. */
  sql: string;
}

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE S.rooms (
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        id text PRIMARY KEY,
        name text NOT NULL,
        members text[] NOT NULL,
        visibility text NOT NULL,
        write_policy text NOT NULL,
        federation_pairings text[] NOT NULL,
        created_at text NOT NULL,
        updated_at text NOT NULL,
        removed_at text
      );
      CREATE INDEX rooms_active ON S.rooms (seq) WHERE removed_at IS NULL;
      CREATE INDEX rooms_members ON S.rooms USING gin (members);

      CREATE TABLE S.agents (
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        id text PRIMARY KEY,
        name text,
        actor_uid text NOT NULL,
        credential_key text NOT NULL,
        created_at text NOT NULL,
        updated_at text NOT NULL
      );
      CREATE INDEX agents_by_credential ON S.agents (credential_key, seq);

      CREATE TABLE S.messages (
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        id text PRIMARY KEY,
        conv text NOT NULL,
        event_id text NOT NULL,
        room_id text,
        thread_id text,
        dm_id text,
        from_id text NOT NULL,
        created_at text NOT NULL,
        body text NOT NULL,
        -- Full-text search (search.ts): the message's distinct folded words, and its scoped sender.
        words text NOT NULL DEFAULT '',
        sender text NOT NULL DEFAULT ''
      );
      CREATE INDEX messages_by_conv ON S.messages (conv, seq);
      CREATE INDEX messages_words ON S.messages USING gin (to_tsvector('simple'::regconfig, words)) WHERE words <> '';

      CREATE TABLE S.threads (
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        id text PRIMARY KEY,
        room_id text NOT NULL,
        parent_message_id text,
        message_count integer NOT NULL,
        last_message_at text NOT NULL,
        created_at text NOT NULL
      );
      CREATE INDEX threads_by_room ON S.threads (room_id, seq);

      CREATE TABLE S.dms (
        seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
        id text PRIMARY KEY,
        participant_ids text[] NOT NULL,
        message_count integer NOT NULL,
        last_message_at text NOT NULL,
        created_at text NOT NULL
      );
      CREATE INDEX dms_participants ON S.dms USING gin (participant_ids);

      CREATE TABLE S.artifacts (
        seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id text NOT NULL,
        target_kind text NOT NULL,
        room_id text,
        thread_id text,
        dm_id text,
        body text NOT NULL
      );
      CREATE INDEX artifacts_by_id ON S.artifacts (id, seq);
      CREATE INDEX artifacts_by_room ON S.artifacts (room_id, seq);
      CREATE INDEX artifacts_by_thread ON S.artifacts (thread_id, seq);
      CREATE INDEX artifacts_by_dm ON S.artifacts (dm_id, seq);

      -- body is the event with "message": null when message_id is set: the message is read back
      -- from the messages table rather than stored twice.
      CREATE TABLE S.events (
        seq bigint PRIMARY KEY,
        event_id text NOT NULL,
        type text NOT NULL,
        message_id text,
        body text NOT NULL
      );
      -- SSE Last-Event-ID names an event id: a resumed stream finds its place here.
      CREATE INDEX events_by_id ON S.events (event_id);

      -- The one row every writing transaction locks to number its events: commits are then in
      -- sequence order, so a reader that sees seq N sees every seq below it (no holes to skip).
      CREATE TABLE S.event_counter (
        id integer PRIMARY KEY CHECK (id = 1),
        seq bigint NOT NULL
      );
      INSERT INTO S.event_counter (id, seq) VALUES (1, 0);

      CREATE TABLE S.pairing_state (
        pairing_id text PRIMARY KEY,
        seq bigint NOT NULL,
        answered boolean NOT NULL
      );

      CREATE TABLE S.leases (
        key text PRIMARY KEY,
        owner text NOT NULL,
        grant_id text NOT NULL,
        expires_at timestamptz NOT NULL
      );

      CREATE TABLE S.instances (
        id text PRIMARY KEY,
        host text NOT NULL,
        pid integer NOT NULL,
        version text NOT NULL,
        started_at timestamptz NOT NULL,
        seen_at timestamptz NOT NULL
      );
    `,
  },
  {
    version: 2,
    // #27 part 1 (MCP over HTTP): each agent's wait cursor and read markers (AgentReadState).
    sql: `
      CREATE TABLE IF NOT EXISTS S.agent_read_state (
        agent_id text PRIMARY KEY,
        body text NOT NULL
      );
    `,
  },
  {
    version: 3,
    // Moved to a stored concern's own migrations (part.ts): empty, so the numbers hold.
    sql: '',
  },
  {
    version: 4,
    // Moved to a stored concern's own migrations (part.ts): empty, so the numbers hold.
    sql: '',
  },
  {
    version: 5,
    // Moved to a stored concern's own migrations (part.ts): empty, so the numbers hold.
    sql: '',
  },
  {
    version: 6,
    // Moved to a stored concern's own migrations (part.ts): empty, so the numbers hold.
    sql: '',
  },
  {
    version: 7,
    // Moved to a stored concern's own migrations (part.ts): empty, so the numbers hold.
    sql: '',
  },
  {
    version: 8,
    // #27 part 2, OAuth state in the store: the expiring key/value table. The text lives with the
    // table (src/store/kv/postgres.ts); this migration's place is here.
    sql: KV_POSTGRES_DDL,
  },
  {
    version: 9,
    // Moved to a stored concern's own migrations (part.ts): empty, so the numbers hold.
    sql: '',
  },
  {
    version: 10,
    // #40 parts 1 and 2, edits and deletes: an edited message's earlier versions (MessageVersion
    // JSON), and the artifacts of one message found by its id (an edit replaces them, a delete drops them).
    sql: `
      CREATE TABLE S.message_versions (
        message_id text NOT NULL,
        version integer NOT NULL,
        body text NOT NULL,
        PRIMARY KEY (message_id, version)
      );
      CREATE INDEX artifacts_by_message ON S.artifacts (((body::jsonb) ->> 'message_id'));
    `,
  },
  {
    version: 11,
    // #40 part 4, retention: a room's own policy (RetentionPolicy JSON; NULL: the network's alone),
    // and the events holding a message found by its id (a purge drops them with the message).
    sql: `
      ALTER TABLE S.rooms ADD COLUMN retention jsonb;
      CREATE INDEX events_by_message ON S.events (message_id) WHERE message_id IS NOT NULL;
    `,
  },
  {
    version: 12,
    // #43 part 1, search off the sends: the search index's pending list is merged by the instances
    // (search-upkeep.ts), not by the insert that fills it past the default 4 MB; 32 MB (in kB) stays
    // as the backstop.
    sql: `
      ALTER INDEX S.messages_words SET (gin_pending_list_limit = 32768);
    `,
  },
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** A schema name as a quoted identifier (config validation already restricts it). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The advisory lock key of a schema's migrations (one per schema, so networks do not wait on each other). */
const lockKey = (schema: string) => `svc:migrate:${schema}`;

/** The schema's applied version (0: no svc tables), read without migrating. */
export async function schemaVersion(client: pg.ClientBase, schema: string): Promise<number> {
  const has = await client.query("SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'schema_migrations'", [
    schema,
  ]);
  if (has.rowCount === 0) return 0;
  const r = await client.query<{ v: number | null }>(`SELECT max(version)::int AS v FROM ${quoteIdent(schema)}.schema_migrations`);
  return r.rows[0]?.v ?? 0;
}

/** The svc version that last migrated the schema (S.meta `migrated_by`), when recorded. */
export async function migratedBy(client: pg.ClientBase, schema: string): Promise<string | undefined> {
  const has = await client.query("SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'meta'", [schema]);
  if (has.rowCount === 0) return undefined;
  const r = await client.query<{ value: string }>(`SELECT value FROM ${quoteIdent(schema)}.meta WHERE key = 'migrated_by'`);
  return r.rows[0]?.value;
}

/**
 * Brings the schema to SCHEMA_VERSION, and the tables of each of `parts` to the part's last
 * version (`part:<name>` in S.meta); returns the core versions applied. A newer schema is refused
 * before anything is touched (StoreError('corrupt')). `before` is told of a migration about to run
 * on an existing schema (the operator's warning).
 */
export async function migrate(
  client: pg.ClientBase,
  schema: string,
  parts: readonly AnyPart[],
  before?: (from: number, to: number) => void,
): Promise<number[]> {
  const S = quoteIdent(schema);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [lockKey(schema)]);
    // Only create what is missing: a role may use a schema an operator made without being allowed to create one.
    const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${S}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${S}.schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const current = await schemaVersion(client, schema);
    if (current > SCHEMA_VERSION) {
      throw new StoreError(
        'corrupt',
        newerSchemaMessage(`database schema ${schema}`, current, SCHEMA_VERSION, await migratedBy(client, schema), VERSION),
      );
    }
    if (current > 0 && current < SCHEMA_VERSION) before?.(current, SCHEMA_VERSION);
    const applied: number[] = [];
    for (const m of MIGRATIONS.filter((x) => x.version > current)) {
      if (m.sql) await client.query(m.sql.replace(/\bS\./g, `${S}.`));
      await client.query(`INSERT INTO ${S}.schema_migrations (version) VALUES ($1)`, [m.version]);
      applied.push(m.version);
    }
    // S.meta is made only when something is written to it: a role without CREATE on an
    // operator's schema opens an up-to-date store.
    let meta =
      (await client.query("SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'meta'", [schema])).rowCount! >
      0;
    const setMeta = async (key: string, value: string) => {
      if (!meta) await client.query(`CREATE TABLE IF NOT EXISTS ${S}.meta (key text PRIMARY KEY, value text NOT NULL)`);
      meta = true;
      await client.query(`INSERT INTO ${S}.meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [
        key,
        value,
      ]);
    };
    // Which svc wrote this schema: named when a later, older svc refuses it.
    if (applied.length > 0) await setMeta('migrated_by', VERSION);
    for (const p of parts) {
      const r = meta ? await client.query<{ value: string }>(`SELECT value FROM ${S}.meta WHERE key = $1`, [`part:${p.name}`]) : undefined;
      const from = Number(r?.rows[0]?.value ?? 0);
      const steps = p.postgres.migrations;
      if (from > steps.length)
        throw new StoreError(
          'corrupt',
          `the ${p.name} tables of schema ${schema} have version ${from}, newer than svc ${VERSION} knows (${steps.length})`,
        );
      for (let v = from; v < steps.length; v++) await client.query(steps[v]!.replace(/\bS\./g, `${S}.`));
      if (from < steps.length) await setMeta(`part:${p.name}`, String(steps.length));
    }
    await client.query('COMMIT');
    return applied;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}
