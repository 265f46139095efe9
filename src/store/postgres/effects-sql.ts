// A batch's effects as ONE statement (data-modifying CTEs), so applying a batch costs one round
// trip however many rows it touches. The CTEs of a statement run on one snapshot and cannot see
// each other's rows, so the effects are first reduced to one final state per record. Records the
// transaction did not see are INSERTed (a concurrent creation of the same id fails on its key), the
// others UPDATEd. The events are numbered by the counter row, locked by this statement and held
// until COMMIT, and announced with pg_notify (delivered at COMMIT, carrying only the last seq).

import type { Message, ServiceEvent } from '../../protocol/types.js';
import type { Effect, PartStates } from '../intents.js';
import { StoreError } from '../types.js';
import type { Basis } from './basis.js';
import {
  AGENT_COLS,
  DM_COLS,
  MESSAGE_COLS,
  ROOM_COLS,
  THREAD_COLS,
  agentParams,
  artifactParams,
  dmParams,
  indexedWords,
  messageParams,
  roomParams,
  threadParams,
} from './rows.js';
import type { Tables } from './tables.js';
import { textArray } from './text-array.js';
import type { AnyPart, PgStatement } from '../part.js';

export interface Present {
  rooms: ReadonlySet<string>;
  agents: ReadonlySet<string>;
  threads: ReadonlySet<string>;
  dms: ReadonlySet<string>;
  pairings: ReadonlySet<string>;
  readStates: ReadonlySet<string>;
}

export interface Statement {
  text: string;
  values: unknown[];
  /** The events in order, as appended (their seqs come back as the statement's `last`). */
  events: ServiceEvent[];
  /**
   * Run after `text` when set: what the parts keep about the batch's deleted messages, when a part
   * also has effects of its own in the batch (a record added before the delete in the same
   * batch is a row the statement's own CTEs cannot see). Nothing later in a batch adds to a
   * deleted message, so forgetting last forgets everything.
   */
  after?: { text: string; values: unknown[] };
}

interface Table {
  name: string;
  cols: string;
  key: string;
}

/** An event's row: a message this batch stores is kept by reference (`message_id`, body without it). */
export function eventRow(
  event: ServiceEvent,
  stored: (id: string) => { message: unknown; body: string } | undefined,
): { event: ServiceEvent; message_id: string | null; body: string } {
  const m = event.message;
  const ins = m ? stored(m.id) : undefined;
  // Only a message identical to the one this batch stored is kept by reference, so reads
  // give back exactly the event that was appended.
  const byRef = m !== undefined && ins !== undefined && (ins.message === m || ins.body === JSON.stringify(m));
  return { event, message_id: byRef ? m.id : null, body: JSON.stringify(byRef ? { ...event, message: null } : event) };
}

/** The event rows as the four array literals (id, type, message id, body) both statements unnest. */
export function eventColumns(rows: readonly ReturnType<typeof eventRow>[]): string[] {
  return [
    textArray(rows.map((r) => r.event.id)),
    textArray(rows.map((r) => r.event.type)),
    textArray(rows.map((r) => r.message_id)),
    textArray(rows.map((r) => r.body)),
  ];
}

/** Builds the statement; its single row holds `last` (text: the last seq, or null without events). */
export function effectsStatement(
  T: Tables,
  present: Present,
  effects: readonly Effect[],
  parts: readonly AnyPart[],
  states?: PartStates,
): Statement {
  const values: unknown[] = [];
  const ctes: string[] = [];
  const param = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  const row = (params: unknown[]) => `(${params.map(param).join(', ')})`;

  // One final state per record: the last put wins; null means deleted.
  const finals = {
    rooms: new Map<string, unknown[] | null>(),
    agents: new Map<string, unknown[] | null>(),
    threads: new Map<string, unknown[] | null>(),
    dms: new Map<string, unknown[] | null>(),
    pairings: new Map<string, unknown[] | null>(),
    readStates: new Map<string, unknown[] | null>(),
  };
  const messages: { id: string; message: Message; body: string; params: unknown[] }[] = [];
  // Messages stored before the batch, changed by it (edits, tombstones): each one's last body.
  const updates = new Map<string, { message: Message; body: string; words: string }>();
  // Rows added by the batch, with the message each belongs to: a later artifacts.clear or
  // message.forget of that message drops them here, as its DELETE cannot see them.
  let artifacts: { message_id: string; params: unknown[] }[] = [];
  let versions: { message_id: string; params: unknown[] }[] = [];
  // Messages whose artifacts stored before the batch go (edited or deleted), and those deleted.
  const cleared = new Set<string>();
  const forgotten = new Set<string>();
  // Redacted messages and their tombstones: the parts rewrite their copies (message.scrub).
  const scrubbed: { id: string; message: Message }[] = [];
  // Messages purged (retention): their rows and the events holding them go too.
  const purged = new Set<string>();
  const mine = parts.map(() => [] as Effect[]);
  const appended: ServiceEvent[] = [];
  for (const e of effects) {
    switch (e.op) {
      case 'room.put':
        finals.rooms.set(e.room.id, roomParams(e.room));
        break;
      case 'agent.put':
        finals.agents.set(e.agent.id, agentParams(e.agent));
        break;
      case 'agent.delete':
        finals.agents.set(e.id, null);
        break;
      case 'thread.put':
        finals.threads.set(e.thread.id, threadParams(e.thread));
        break;
      case 'dm.put':
        finals.dms.set(e.dm.id, dmParams(e.dm));
        break;
      case 'pairing.put':
        finals.pairings.set(e.pairing_id, [e.pairing_id, e.state.seq, e.state.answered]);
        break;
      case 'pairing.delete':
        finals.pairings.set(e.pairing_id, null);
        break;
      case 'read_state.put':
        finals.readStates.set(e.agent_id, [e.agent_id, JSON.stringify(e.state)]);
        break;
      case 'read_state.delete':
        finals.readStates.set(e.agent_id, null);
        break;
      case 'message.insert': {
        const body = JSON.stringify(e.record.message);
        messages.push({ id: e.record.message.id, message: e.record.message, body, params: messageParams(e.record, body) });
        break;
      }
      case 'message.update': {
        const m = e.record.message;
        const body = JSON.stringify(m);
        const inserted = messages.findIndex((x) => x.id === m.id);
        if (inserted >= 0) messages[inserted] = { id: m.id, message: m, body, params: messageParams(e.record, body) };
        // The words search reads are the new body's (a tombstone has none).
        else updates.set(m.id, { message: m, body, words: indexedWords(m) });
        break;
      }
      case 'message.version':
        versions.push({ message_id: e.message_id, params: [e.message_id, e.version.version, JSON.stringify(e.version)] });
        break;
      case 'artifacts.clear':
        artifacts = artifacts.filter((a) => a.message_id !== e.message_id);
        cleared.add(e.message_id);
        break;
      case 'message.forget':
        artifacts = artifacts.filter((a) => a.message_id !== e.message_id);
        versions = versions.filter((v) => v.message_id !== e.message_id);
        cleared.add(e.message_id);
        forgotten.add(e.message_id);
        break;
      case 'message.purge': {
        artifacts = artifacts.filter((a) => a.message_id !== e.message_id);
        versions = versions.filter((v) => v.message_id !== e.message_id);
        cleared.add(e.message_id);
        forgotten.add(e.message_id);
        purged.add(e.message_id);
        // Stored by this batch or before it: either way no row is left (nothing later in a batch adds to it).
        const inserted = messages.findIndex((x) => x.id === e.message_id);
        if (inserted >= 0) messages.splice(inserted, 1);
        updates.delete(e.message_id);
        break;
      }
      case 'message.scrub':
        scrubbed.push({ id: e.message_id, message: e.message });
        break;
      case 'artifact.insert':
        artifacts.push({ message_id: e.artifact.message_id, params: artifactParams(e.artifact) });
        break;
      case 'event.append':
        appended.push(e.event);
        break;
      default: {
        const i = parts.findIndex((p) => p.owns(e));
        if (i >= 0) {
          mine[i]!.push(e);
          break;
        }
        throw new StoreError('corrupt', `unknown effect ${JSON.stringify((e as { op?: unknown }).op)}`);
      }
    }
  }

  const upsert = (t: Table, seen: ReadonlySet<string>, final: Map<string, unknown[] | null>) => {
    const cols = t.cols.split(',').map((c) => c.trim());
    const inserts: string[] = [];
    for (const [id, params] of final) {
      if (params === null) {
        if (seen.has(id)) ctes.push(`DELETE FROM ${t.name} WHERE ${t.key} = ${param(id)}`);
      } else if (seen.has(id)) {
        const sets = cols.slice(1).map((c, i) => `${c} = ${param(params[i + 1])}`);
        ctes.push(`UPDATE ${t.name} SET ${sets.join(', ')} WHERE ${t.key} = ${param(params[0])}`);
      } else inserts.push(row(params));
    }
    // One multi-row INSERT per table numbers new rows in the order the batch first put them
    // (separate CTEs would run in no particular order).
    if (inserts.length > 0) ctes.push(`INSERT INTO ${t.name} (${t.cols}) VALUES ${inserts.join(', ')}`);
  };
  upsert({ name: T.rooms, cols: ROOM_COLS, key: 'id' }, present.rooms, finals.rooms);
  upsert({ name: T.agents, cols: AGENT_COLS, key: 'id' }, present.agents, finals.agents);
  upsert({ name: T.threads, cols: THREAD_COLS, key: 'id' }, present.threads, finals.threads);
  upsert({ name: T.dms, cols: DM_COLS, key: 'id' }, present.dms, finals.dms);
  upsert({ name: T.pairing_state, cols: 'pairing_id, seq, answered', key: 'pairing_id' }, present.pairings, finals.pairings);
  upsert({ name: T.agent_read_state, cols: 'agent_id, body', key: 'agent_id' }, present.readStates, finals.readStates);
  if (messages.length > 0) {
    // One multi-row INSERT numbers the rows in the batch's order.
    ctes.push(`INSERT INTO ${T.messages} (${MESSAGE_COLS}) VALUES ${messages.map((m) => row(m.params)).join(', ')}`);
  }
  for (const [id, u] of updates)
    ctes.push(`UPDATE ${T.messages} SET body = ${param(u.body)}, words = ${param(u.words)} WHERE id = ${param(id)}`);
  if (versions.length > 0)
    ctes.push(`INSERT INTO ${T.message_versions} (message_id, version, body) VALUES ${versions.map((v) => row(v.params)).join(', ')}`);
  // Only rows stored before the batch (the statement's snapshot): the batch's own inserts stand.
  if (cleared.size > 0) ctes.push(`DELETE FROM ${T.artifacts} WHERE ${ARTIFACT_MESSAGE} = ANY(${param([...cleared])}::text[])`);
  if (forgotten.size > 0) ctes.push(`DELETE FROM ${T.message_versions} WHERE message_id = ANY(${param([...forgotten])}::text[])`);
  if (purged.size > 0) {
    // The words search reads are on the row: it going takes the message out of search too. The
    // events go by reference (events_by_message); the feed reads past the seqs they leave (feed.ts).
    const ids = `${param([...purged])}::text[]`;
    ctes.push(`DELETE FROM ${T.messages} WHERE id = ANY(${ids})`);
    ctes.push(`DELETE FROM ${T.events} WHERE message_id = ANY(${ids})`);
  }
  if (artifacts.length > 0)
    ctes.push(
      `INSERT INTO ${T.artifacts} (id, target_kind, room_id, thread_id, dm_id, body) VALUES ${artifacts.map((a) => row(a.params)).join(', ')}`,
    );
  // The concerns' own effects, after the core's (in the order the parts are listed).
  const sql = { param, row, table: T.table };
  parts.forEach((p, i) => {
    if (mine[i]!.length > 0) ctes.push(...p.postgres.ctes(mine[i]!, sql, states?.state(p)));
  });
  const after = forgotten.size > 0 ? partsForget(parts, mine, [...forgotten], ctes, sql) : undefined;
  // Events hold a message by reference (eventRow): only the parts keep copies of a redacted one.
  for (const s of scrubbed) for (const p of parts) ctes.push(...(p.postgres.scrub?.(s.id, s.message, sql) ?? []));

  // An event shows a message as the batch left it when it is kept by reference: only one identical
  // to the message's final body is (an earlier edit of the same batch is kept whole).
  const events = appended.map((event) => eventRow(event, (id) => messages.find((x) => x.id === id) ?? updates.get(id)));

  const withs = ctes.map((c, i) => `w${i} AS (${c})`);
  let main = 'SELECT NULL::text AS last';
  if (events.length > 0) {
    const n = param(events.length);
    withs.push(`c AS (UPDATE ${T.event_counter} SET seq = seq + ${n} WHERE id = 1 RETURNING seq)`);
    withs.push(
      `ev AS (INSERT INTO ${T.events} (seq, event_id, type, message_id, body) ` +
        `SELECT c.seq - ${n} + x.ord, x.eid, x.type, x.mid, x.body FROM c, ` +
        `unnest(${eventColumns(events)
          .map((c) => `${param(c)}::text[]`)
          .join(', ')}) ` +
        'WITH ORDINALITY AS x(eid, type, mid, body, ord) RETURNING seq)',
    );
    main = `SELECT s.last::text AS last, pg_notify(${param(T.channel)}, s.last::text) FROM (SELECT max(seq) AS last FROM ev) s`;
  }
  const text = withs.length > 0 ? `WITH ${withs.join(', ')} ${main}` : main;
  return { text, values, events: events.map((x) => x.event), ...(after ? { after } : {}) };
}

/** The key a message's artifacts are found by (an expression index, schema.ts version 10). */
const ARTIFACT_MESSAGE = "((body::jsonb) ->> 'message_id')";

/**
 * Each part's CTEs forgetting the deleted messages `ids`: in the batch's statement (added to
 * `ctes`) when no part that forgets has effects of its own in the batch, else as a statement of
 * their own, run after it (Statement.after).
 */
function partsForget(
  parts: readonly AnyPart[],
  mine: readonly Effect[][],
  ids: string[],
  ctes: string[],
  sql: PgStatement,
): Statement['after'] {
  if (!parts.some((p, i) => p.postgres.forget && mine[i]!.length > 0)) {
    const placeholder = `${sql.param(ids)}::text[]`;
    for (const p of parts) ctes.push(...(p.postgres.forget?.(placeholder, sql) ?? []));
    return undefined;
  }
  const values: unknown[] = [];
  const own = {
    param: (v: unknown) => {
      values.push(v);
      return `$${values.length}`;
    },
    row: (params: unknown[]) => `(${params.map((v) => own.param(v)).join(', ')})`,
    table: sql.table,
  };
  const placeholder = `${own.param(ids)}::text[]`;
  const forgets = parts.flatMap((p) => p.postgres.forget?.(placeholder, own) ?? []);
  if (forgets.length === 0) return undefined;
  return { text: `WITH ${forgets.map((c, i) => `f${i} AS (${c})`).join(', ')} SELECT 1`, values };
}

/**
 * SQL that is true when every record of a basis still has the version it was decided on; it locks
 * them (FOR SHARE), so none changes before the transaction commits. Its parameters are four text
 * arrays, as `basisParams` gives them: room ids, their versions, agent ids, their versions.
 */
export function basisGuard(T: Tables, roomIds: string, roomVersions: string, agentIds: string, agentVersions: string): string {
  const changed = (table: string, ids: string, versions: string) =>
    `EXISTS (SELECT 1 FROM unnest(${ids}, ${versions}) AS b(id, v) WHERE b.v IS DISTINCT FROM (SELECT xmin::text FROM ${table} t WHERE t.id = b.id FOR SHARE))`;
  return `NOT ${changed(T.rooms, roomIds, roomVersions)} AND NOT ${changed(T.agents, agentIds, agentVersions)}`;
}

/** The guard's parameters: each record once, in id order (rows are locked in one order). */
export function basisParams(basis: readonly Basis[]): (string | null)[][] {
  const out: (string | null)[][] = [[], [], [], []];
  const seen = new Set<string>();
  for (const b of [...basis].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))) {
    const key = `${b.kind} ${b.id} ${b.version}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const i = b.kind === 'room' ? 0 : 2;
    out[i]!.push(b.id);
    out[i + 1]!.push(b.version);
  }
  return out;
}
