// Copies a whole network from any store into an empty Postgres schema (created and migrated when
// absent), in one transaction: the target ends up with the complete network or unchanged. What is
// read, and in which order, is network-copy.ts; this file writes it as rows.

import pg from 'pg';
import {
  fillSink,
  TargetNotEmpty,
  type CopyCounts,
  type CopyNetworkOptions,
  type NetworkFill,
  type NetworkSink,
  type NetworkSource,
} from '../network-copy.js';
import { migrate } from './schema.js';
import {
  ROOM_COLS,
  AGENT_COLS,
  THREAD_COLS,
  DM_COLS,
  MESSAGE_COLS,
  agentParams,
  artifactParams,
  dmParams,
  messageParams,
  roomParams,
  threadParams,
} from './rows.js';
import { tablesOf, type Tables } from './tables.js';
import { ALL_PARTS } from '../concerns.js';
import type { Tagged } from '../part.js';
import { KV_COLUMNS, KV_TABLE, kvCopyRow } from '../kv/postgres.js';

export interface CopyOptions extends CopyNetworkOptions {
  url: string;
  schema: string;
}

/** Copies `source` into the target schema (created and migrated when absent); returns what was copied. */
export async function copyToPostgres(source: NetworkSource | NetworkFill, o: CopyOptions): Promise<CopyCounts> {
  const T = tablesOf(o.schema);
  const client = new pg.Client({ connectionString: o.url, connectionTimeoutMillis: 10_000, application_name: 'svc store copy' });
  client.on('error', () => {});
  await client.connect();
  try {
    await migrate(client, o.schema, ALL_PARTS);
    await client.query('BEGIN');
    try {
      // Instances starting on the target wait for the copy instead of writing into it.
      await client.query(`LOCK TABLE ${T.events}, ${T.rooms}, ${T.agents}, ${T.messages} IN EXCLUSIVE MODE`);
      await refuseNonEmpty(client, T);
      const counts = await fillSink(source, sinkOf(client, T), o);
      await client.query('COMMIT');
      return counts;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    }
  } finally {
    await client.end().catch(() => {});
  }
}

async function refuseNonEmpty(c: pg.Client, T: Tables): Promise<void> {
  const r = await c.query<{ rooms: string; agents: string; messages: string; events: string }>(
    `SELECT (SELECT count(*) FROM ${T.rooms}) AS rooms, (SELECT count(*) FROM ${T.agents}) AS agents, ` +
      `(SELECT count(*) FROM ${T.messages}) AS messages, (SELECT count(*) FROM ${T.events}) AS events`,
  );
  const row = r.rows[0]!;
  const held = (['rooms', 'agents', 'messages', 'events'] as const).filter((k) => Number(row[k]) > 0).map((k) => `${row[k]} ${k}`);
  if (held.length > 0) throw new TargetNotEmpty('schema', held.join(', '));
}

/** Inserts rows through one multi-row statement per chunk. */
async function insertRows(c: pg.Client, table: string, cols: string, rows: unknown[][]): Promise<void> {
  const width = cols.split(',').length;
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const values = chunk.map((_, r) => `(${Array.from({ length: width }, (__, k) => `$${r * width + k + 1}`).join(', ')})`).join(', ');
    await c.query(`INSERT INTO ${table} (${cols}) VALUES ${values}`, chunk.flat());
  }
}

/** Applies the parts' copied records with each part's own SQL (part.ts), a chunk per statement. */
async function applyParts(c: pg.Client, T: Tables, effects: readonly Tagged[]): Promise<void> {
  for (const p of ALL_PARTS) {
    const mine = effects.filter((e) => p.owns(e));
    for (let i = 0; i < mine.length; i += 500) {
      const values: unknown[] = [];
      const param = (v: unknown) => {
        values.push(v);
        return `$${values.length}`;
      };
      const ctes = p.postgres.ctes(mine.slice(i, i + 500), { param, row: (ps) => `(${ps.map(param).join(', ')})`, table: T.table });
      if (ctes.length > 0) await c.query(`WITH ${ctes.map((x, k) => `w${k} AS (${x})`).join(', ')} SELECT 1`, values);
    }
  }
}

function sinkOf(c: pg.Client, T: Tables): NetworkSink {
  return {
    async events(page) {
      await insertRows(
        c,
        T.messages,
        MESSAGE_COLS,
        page.messages.map((m) => messageParams(m.record, m.body)),
      );
      await insertRows(
        c,
        T.events,
        'seq, event_id, type, message_id, body',
        page.events.map((e) => [e.seq, e.id, e.type, e.message_id, e.body]),
      );
      await insertRows(
        c,
        T.message_versions,
        'message_id, version, body',
        page.versions.map((v) => [v.message_id, v.version.version, JSON.stringify(v.version)]),
      );
      await applyParts(c, T, page.parts);
    },
    async records(r) {
      await c.query(`UPDATE ${T.event_counter} SET seq = $1 WHERE id = 1`, [r.last_seq]);
      await insertRows(c, T.rooms, ROOM_COLS, r.rooms.map(roomParams));
      await insertRows(c, T.agents, AGENT_COLS, r.agents.map(agentParams));
      await insertRows(c, T.threads, THREAD_COLS, r.threads.map(threadParams));
      await insertRows(c, T.dms, DM_COLS, r.dms.map(dmParams));
      await insertRows(c, T.artifacts, 'id, target_kind, room_id, thread_id, dm_id, body', r.artifacts.map(artifactParams));
      await insertRows(c, T.table(KV_TABLE), KV_COLUMNS, (r.kv ?? []).map(kvCopyRow));
      for (const p of r.pairings)
        await c.query(`INSERT INTO ${T.pairing_state} (pairing_id, seq, answered) VALUES ($1, $2, $3)`, [
          p.pairing_id,
          p.state.seq,
          p.state.answered,
        ]);
      for (const x of r.readStates)
        await c.query(`INSERT INTO ${T.agent_read_state} (agent_id, body) VALUES ($1, $2)`, [x.agent_id, JSON.stringify(x.state)]);
      await applyParts(c, T, r.parts);
    },
  };
}
