// The webhook outbox in Postgres: its tables, its reads and the statement pieces of its effects.

import type { PostgresAdapter } from '../part.js';
import { NO_STATE, type OutboxState } from './decide.js';
import type { WebhookEffect, WebhookOp } from './ops.js';
import type { WebhookDelivery, WebhookReads } from './records.js';

/**
 * The tables (`S` is the schema), as migration 5 of postgres/schema.ts created them before the
 * part kept its own versions.
 */
const OUTBOX_DDL = `
      CREATE TABLE IF NOT EXISTS S.webhook_cursors (
        id text PRIMARY KEY,
        seq bigint NOT NULL
      );
      CREATE TABLE IF NOT EXISTS S.webhook_deliveries (
        id text PRIMARY KEY,
        webhook_id text NOT NULL,
        status text NOT NULL,
        seq bigint NOT NULL,
        body text NOT NULL
      );
      CREATE INDEX IF NOT EXISTS webhook_deliveries_by_status ON S.webhook_deliveries (webhook_id, status, seq, id);
    `;

/**
 * Migration 9 of postgres/schema.ts before the part kept its own versions. The webhook worker reads
 * the deliveries that are due, not the oldest pending ones: a hundred waiting on a retry must not
 * hide a newer one (issue 38). Their next attempt time becomes a column (set by every write, filled
 * here from the body) with an index in due order. COLLATE "C": the ISO times compare as bytes,
 * whatever the database's collation.
 */
const DUE_DDL = `
      ALTER TABLE S.webhook_deliveries ADD COLUMN IF NOT EXISTS next_attempt_at text COLLATE "C";
      UPDATE S.webhook_deliveries SET next_attempt_at = body::jsonb ->> 'next_attempt_at' WHERE next_attempt_at IS NULL;
      CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON S.webhook_deliveries (webhook_id, status, next_attempt_at, seq, id);
    `;

export const postgresWebhooks: PostgresAdapter<WebhookOp, WebhookEffect, OutboxState, WebhookReads> = {
  // A redaction rewrites the deliveries of its message's events (scrub), found by their seqs.
  migrations: [OUTBOX_DDL, DUE_DDL, 'CREATE INDEX IF NOT EXISTS webhook_deliveries_by_seq ON S.webhook_deliveries (seq);'],
  scrub(messageId, tombstone, sql) {
    // The payload is JSON held as a string in the delivery's JSON: its `data.message` (the
    // event's message) becomes the tombstone.
    const D = sql.table('webhook_deliveries');
    const payload = "(body::jsonb ->> 'payload')::jsonb";
    return [
      `UPDATE ${D} SET body = jsonb_set(body::jsonb, '{payload}', to_jsonb(jsonb_set(${payload}, '{data,message}', ${sql.param(JSON.stringify(tombstone))}::jsonb)::text))::text ` +
        `WHERE seq IN (SELECT seq FROM ${sql.table('events')} WHERE message_id = ${sql.param(messageId)}) AND ${payload} #> '{data,message}' IS NOT NULL`,
    ];
  },
  ctes(mine, sql) {
    const out: string[] = [];
    for (const e of lastOfEach(mine)) {
      if (e.op === 'webhook.cursor.put') {
        out.push(
          `INSERT INTO ${sql.table('webhook_cursors')} (id, seq) VALUES (${sql.param(e.webhook_id)}, ${sql.param(e.seq)}) ` +
            'ON CONFLICT (id) DO UPDATE SET seq = EXCLUDED.seq',
        );
        continue;
      }
      const d = e.delivery;
      const onConflict =
        e.op === 'webhook.delivery.add'
          ? 'DO NOTHING'
          : // The payload is the one added (a redaction may have rewritten it since the worker read it: scrub).
            `DO UPDATE SET status = EXCLUDED.status, seq = EXCLUDED.seq, next_attempt_at = EXCLUDED.next_attempt_at, body = jsonb_set(EXCLUDED.body::jsonb, '{payload}', ${sql.table('webhook_deliveries')}.body::jsonb -> 'payload')::text`;
      out.push(
        `INSERT INTO ${sql.table('webhook_deliveries')} (id, webhook_id, status, seq, next_attempt_at, body) ` +
          `VALUES ${sql.row([d.id, d.webhook_id, d.status, d.seq, d.next_attempt_at, JSON.stringify(d)])} ON CONFLICT (id) ${onConflict}`,
      );
    }
    return out;
  },
  prefetch: async () => NO_STATE,
  reads: (rows, T) => {
    const D = T.table('webhook_deliveries');
    return {
      async cursor(id) {
        const [r] = await rows(`SELECT seq FROM ${T.table('webhook_cursors')} WHERE id = $1`, [id]);
        return r ? Number(r.seq) : undefined;
      },
      async deliveries(q) {
        const where = ['webhook_id = $1'];
        const values: unknown[] = [q.webhook_id];
        if (q.status !== undefined) where.push(`status = $${values.push(q.status)}`);
        if (q.id !== undefined) where.push(`id = $${values.push(q.id)}`);
        if (q.due_by !== undefined) where.push(`next_attempt_at <= $${values.push(q.due_by)}`);
        const dir = q.order === 'newest' ? 'DESC' : 'ASC';
        // The due read walks webhook_deliveries_due (webhook_id, status, next_attempt_at, seq, id) in order.
        const order = q.order === 'due' ? 'next_attempt_at ASC, seq ASC, id ASC' : `seq ${dir}, id ${dir}`;
        const limit = `$${values.push(q.limit)}`;
        const found = await rows(`SELECT body FROM ${D} WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${limit}`, values);
        return found.map((r) => JSON.parse(String(r.body)) as WebhookDelivery);
      },
      async stats(webhookId) {
        // Counts over the (webhook_id, status, ...) indexes; each time is the first entry of one.
        // Deliveries are queued in seq order as they are created: the first pending by seq is the oldest.
        const [r] = await rows(
          `SELECT count(*) FILTER (WHERE status = 'pending') AS pending, count(*) FILTER (WHERE status = 'dead') AS dead,
            (SELECT next_attempt_at FROM ${D} WHERE webhook_id = $1 AND status = 'pending' ORDER BY next_attempt_at LIMIT 1) AS next_attempt_at,
            (SELECT body FROM ${D} WHERE webhook_id = $1 AND status = 'pending' ORDER BY seq, id LIMIT 1) AS first
          FROM ${D} WHERE webhook_id = $1 AND status IN ('pending', 'dead')`,
          [webhookId],
        );
        const first = r?.first ? (JSON.parse(String(r.first)) as WebhookDelivery) : undefined;
        return {
          pending: Number(r?.pending ?? 0),
          dead: Number(r?.dead ?? 0),
          ...(r?.next_attempt_at ? { next_attempt_at: String(r.next_attempt_at) } : {}),
          ...(first ? { oldest_pending_at: first.created_at } : {}),
        };
      },
    };
  },
};

/**
 * The CTEs of a statement run on one snapshot and an upsert cannot touch a row twice, so a batch
 * that writes one cursor or delivery more than once (two enqueues of a webhook, an enqueue and a
 * delivery's new state) is first reduced to the effect that leaves the row as applying them in
 * order would: a cursor's last; a delivery's last `put`, else its first `add` (a later add of a
 * stored id changes nothing).
 */
function lastOfEach(mine: readonly WebhookEffect[]): WebhookEffect[] {
  const byRow = new Map<string, WebhookEffect>();
  for (const e of mine) {
    const key = e.op === 'webhook.cursor.put' ? `c\u0000${e.webhook_id}` : `d\u0000${e.delivery.id}`;
    if (e.op === 'webhook.delivery.add' && byRow.has(key)) continue;
    byRow.delete(key);
    byRow.set(key, e);
  }
  return [...byRow.values()];
}
