// The group commit's statement (fast-lane.ts) when a group only appends (room messages, their
// artifacts, events): the same effects as effects-sql.ts, but every row goes in as a column array
// (unnest), so the text never changes with the group's size and runs as one prepared statement,
// parsed and planned once per connection instead of once per group. Its arrays go as literals
// made here (text-array.ts).
//
// The guard `g` checks the versions of the records the group's messages were decided on (tentative
// reads, tentative.ts); every insert and the counter update are conditional on it.
//
// As in effects-sql.ts, the counter row is taken by the main query (c, ev) before the inserts of
// the other CTEs run (data-modifying CTEs nobody reads run after the main query), so messages are
// numbered while the lock is held, in commit order.

import type { Effect } from '../intents.js';
import { MESSAGE_COLS, artifactParams, messageParams } from './rows.js';
import { basisGuard, basisParams, eventColumns, eventRow, type Statement } from './effects-sql.js';
import type { Basis } from './basis.js';
import type { Tables } from './tables.js';
import type { RoomRecord } from '../types.js';
import { notifyTail } from './notify-payload.js';
import { textArray } from './text-array.js';

const MESSAGE_WIDTH = MESSAGE_COLS.split(',').length;
const ARTIFACT_COLS = 'id, target_kind, room_id, thread_id, dm_id, body';
const ARTIFACT_WIDTH = ARTIFACT_COLS.split(',').length;

export interface PreparedStatement extends Statement {
  name: string;
}

const texts = new WeakMap<Tables, string>();

function textOf(T: Tables): string {
  let text = texts.get(T);
  if (text) return text;
  let n = 0;
  const arrays = (k: number) => Array.from({ length: k }, () => `$${++n}::text[]`).join(', ');
  const ok = '(SELECT ok FROM g)';
  const m = `m AS (INSERT INTO ${T.messages} (${MESSAGE_COLS}) SELECT * FROM unnest(${arrays(MESSAGE_WIDTH)}) WHERE ${ok})`;
  const a = `a AS (INSERT INTO ${T.artifacts} (${ARTIFACT_COLS}) SELECT * FROM unnest(${arrays(ARTIFACT_WIDTH)}) WHERE ${ok})`;
  const count = `$${++n}::bigint`;
  const c = `c AS (UPDATE ${T.event_counter} SET seq = seq + ${count} WHERE id = 1 AND ${ok} RETURNING seq)`;
  const ev =
    `ev AS (INSERT INTO ${T.events} (seq, event_id, type, message_id, body) ` +
    `SELECT c.seq - ${count} + x.ord, x.eid, x.type, x.mid, x.body FROM c, unnest(${arrays(4)}) WITH ORDINALITY AS x(eid, type, mid, body, ord) RETURNING seq)`;
  const channel = `$${++n}::text`;
  const g = `g AS (SELECT ${basisGuard(T, `$${++n}::text[]`, `$${++n}::text[]`, `$${++n}::text[]`, `$${++n}::text[]`)} AS ok)`;
  const tail = `$${++n}::text`;
  // No row when the guard failed (nothing was written, no event numbered, nothing notified).
  text = `WITH ${g}, ${m}, ${a}, ${c}, ${ev} SELECT s.last::text AS last, pg_notify(${channel}, s.last::text || ${tail}) FROM (SELECT max(seq) AS last FROM ev) s WHERE s.last IS NOT NULL`;
  texts.set(T, text);
  return text;
}

/**
 * The statement, or undefined when the effects hold more than appends (or no event). It writes
 * nothing and returns no row when a record of `basis` has changed. Its notification carries the
 * events and `rooms`, the rooms they were decided on, where they fit (notify-payload.ts), when
 * `carry` says another instance reads them.
 */
export function appendStatement(
  T: Tables,
  effects: readonly Effect[],
  basis: readonly Basis[],
  rooms: readonly RoomRecord[],
  carry: boolean,
): PreparedStatement | undefined {
  const messages = new Map<string, { message: unknown; body: string }>();
  const mcols: unknown[][] = Array.from({ length: MESSAGE_WIDTH }, () => []);
  const acols: unknown[][] = Array.from({ length: ARTIFACT_WIDTH }, () => []);
  const appended: Extract<Effect, { op: 'event.append' }>['event'][] = [];
  for (const e of effects) {
    if (e.op === 'message.insert') {
      const body = JSON.stringify(e.record.message);
      messages.set(e.record.message.id, { message: e.record.message, body });
      messageParams(e.record, body).forEach((v, i) => mcols[i]!.push(v));
    } else if (e.op === 'artifact.insert') {
      artifactParams(e.artifact).forEach((v, i) => acols[i]!.push(v));
    } else if (e.op === 'event.append') {
      appended.push(e.event);
    } else return undefined;
  }
  if (appended.length === 0) return undefined;
  const rows = appended.map((event) => eventRow(event, (id) => messages.get(id)));
  const values = [
    ...mcols.map(textArray),
    ...acols.map(textArray),
    appended.length,
    ...eventColumns(rows),
    T.channel,
    ...basisParams(basis).map(textArray),
    carry
      ? notifyTail(
          rows.map((r) => ({ body: r.body, mbody: r.message_id === null ? null : messages.get(r.message_id)!.body })),
          rooms,
        )
      : '',
  ];
  return { name: `${T.prefix}fast_append`, text: textOf(T), values, events: appended };
}
