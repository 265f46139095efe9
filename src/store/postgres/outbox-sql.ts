// The webhook outbox's effects as CTEs of a batch's one statement (effects-sql.ts). #28 part 3.
// A batch touches a cursor or a delivery once, so no two CTEs of a statement meet on one row.

import type { Effect } from '../intents.js';
import type { Tables } from './tables.js';

type OutboxEffect = Extract<
  Effect,
  { op: 'webhook.cursor.put' | 'webhook.delivery.add' | 'webhook.delivery.put' | 'hook.put' | 'hook.delete' }
>;

/** The CTE body for one outbox effect; `param` binds a value and returns its placeholder. */
export function outboxCte(T: Tables, e: OutboxEffect, param: (v: unknown) => string): string {
  // Hooks declared by `svc apply`: a batch deletes a kind+id before it puts it (intents.ts), and
  // CTEs see one snapshot, so a re-declared hook is an upsert, never a delete after the put.
  if (e.op === 'hook.delete') return `DELETE FROM ${T.applied_hooks} WHERE kind = ${param(e.kind)} AND id = ${param(e.id)}`;
  if (e.op === 'hook.put') {
    const h = e.hook;
    return (
      `INSERT INTO ${T.applied_hooks} (kind, id, body, applied_at) VALUES (${param(h.kind)}, ${param(h.id)}, ${param(h.body)}, ${param(h.applied_at)}) ` +
      'ON CONFLICT (kind, id) DO UPDATE SET body = EXCLUDED.body, applied_at = EXCLUDED.applied_at'
    );
  }
  if (e.op === 'webhook.cursor.put') {
    return (
      `INSERT INTO ${T.webhook_cursors} (id, seq) VALUES (${param(e.webhook_id)}, ${param(e.seq)}) ` +
      'ON CONFLICT (id) DO UPDATE SET seq = EXCLUDED.seq'
    );
  }
  const d = e.delivery;
  const values = [d.id, d.webhook_id, d.status, d.seq, d.next_attempt_at, JSON.stringify(d)].map(param).join(', ');
  const onConflict =
    e.op === 'webhook.delivery.add'
      ? 'DO NOTHING'
      : 'DO UPDATE SET status = EXCLUDED.status, seq = EXCLUDED.seq, next_attempt_at = EXCLUDED.next_attempt_at, body = EXCLUDED.body';
  return `INSERT INTO ${T.webhook_deliveries} (id, webhook_id, status, seq, next_attempt_at, body) VALUES (${values}) ON CONFLICT (id) ${onConflict}`;
}
