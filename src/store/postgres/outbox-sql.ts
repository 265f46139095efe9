// The webhook outbox's effects as CTEs of a batch's one statement (effects-sql.ts). #28 part 3.
// A batch touches a cursor or a delivery once, so no two CTEs of a statement meet on one row.

import type { Effect } from '../intents.js';
import type { Tables } from './tables.js';

type OutboxEffect = Extract<Effect, { op: 'webhook.cursor.put' | 'webhook.delivery.add' | 'webhook.delivery.put' }>;

/** The CTE body for one outbox effect; `param` binds a value and returns its placeholder. */
export function outboxCte(T: Tables, e: OutboxEffect, param: (v: unknown) => string): string {
  if (e.op === 'webhook.cursor.put') {
    return (
      `INSERT INTO ${T.webhook_cursors} (id, seq) VALUES (${param(e.webhook_id)}, ${param(e.seq)}) ` +
      'ON CONFLICT (id) DO UPDATE SET seq = EXCLUDED.seq'
    );
  }
  const d = e.delivery;
  const values = [d.id, d.webhook_id, d.status, d.seq, JSON.stringify(d)].map(param).join(', ');
  const onConflict =
    e.op === 'webhook.delivery.add' ? 'DO NOTHING' : 'DO UPDATE SET status = EXCLUDED.status, seq = EXCLUDED.seq, body = EXCLUDED.body';
  return `INSERT INTO ${T.webhook_deliveries} (id, webhook_id, status, seq, body) VALUES (${values}) ON CONFLICT (id) ${onConflict}`;
}
