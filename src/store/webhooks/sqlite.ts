// The webhook outbox in sqlite: its tables, its SQL and how its effects are applied.

import type { SqlAll, SqliteAdapter } from '../part.js';
import { NO_STATE, type OutboxState } from './decide.js';
import type { WebhookEffect } from './ops.js';
import type { DeliveryStats, WebhookDelivery, WebhookReads } from './records.js';

/**
 * The tables, as migration 8 of sqlite/schema.ts created them before the part kept its own
 * versions. IF NOT EXISTS: a database made before holds them already.
 */
const OUTBOX_DDL = `
      CREATE TABLE IF NOT EXISTS webhook_cursors (id TEXT PRIMARY KEY, seq INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS webhook_deliveries (
        id TEXT PRIMARY KEY,
        webhook_id TEXT NOT NULL,
        status TEXT NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS webhook_deliveries_by_status ON webhook_deliveries (webhook_id, status, seq, id);
    `;

const bodies = (all: SqlAll, sql: string, params: (string | number)[]): WebhookDelivery[] =>
  all(sql, params).map((r) => JSON.parse(r[0] as string) as WebhookDelivery);

export const sqliteWebhooks: SqliteAdapter<WebhookEffect, OutboxState, WebhookReads> = {
  migrations: [
    OUTBOX_DDL,
    {
      // Migration 12 of sqlite/schema.ts before the part kept its own versions. The webhook worker
      // reads the deliveries that are due, not the oldest pending ones: a hundred waiting on a
      // retry must not hide a newer one (issue 38). Their next attempt time becomes a column (set
      // by every write, filled here from the body) with an index in due order. In code: a
      // database made before the part had its versions has the column already.
      sql: '',
      fill: (db) => {
        const cols = db.exec('PRAGMA table_info(webhook_deliveries)')[0]?.values.map((r) => String(r[1])) ?? [];
        if (!cols.includes('next_attempt_at')) db.run('ALTER TABLE webhook_deliveries ADD COLUMN next_attempt_at TEXT');
        db.run("UPDATE webhook_deliveries SET next_attempt_at = json_extract(body, '$.next_attempt_at') WHERE next_attempt_at IS NULL");
        db.run('CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (webhook_id, status, next_attempt_at, seq, id)');
      },
    },
    // A redaction rewrites the deliveries of its message's events (scrub), found by their seqs.
    'CREATE INDEX IF NOT EXISTS webhook_deliveries_by_seq ON webhook_deliveries (seq)',
  ],
  apply(run, e) {
    if (e.op === 'webhook.cursor.put') {
      run('INSERT INTO webhook_cursors (id, seq) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq', [e.webhook_id, e.seq]);
      return;
    }
    const d = e.delivery;
    run(
      'INSERT INTO webhook_deliveries (id, webhook_id, status, seq, next_attempt_at, body) VALUES (?, ?, ?, ?, ?, ?) ' +
        (e.op === 'webhook.delivery.add'
          ? 'ON CONFLICT (id) DO NOTHING'
          : // The payload is the one added (a redaction may have rewritten it since the worker read it: scrub).
            "ON CONFLICT (id) DO UPDATE SET status = excluded.status, seq = excluded.seq, next_attempt_at = excluded.next_attempt_at, body = json_set(excluded.body, '$.payload', json_extract(webhook_deliveries.body, '$.payload'))"),
      [d.id, d.webhook_id, d.status, d.seq, d.next_attempt_at, JSON.stringify(d)],
    );
  },
  scrub(run, messageId, tombstone) {
    // The payload is JSON held as a string in the delivery's JSON: rewritten in place, its
    // `data.message` (the event's message) set to the tombstone. `'' ||` makes the inner JSON a
    // plain string again, so the outer json_set stores it as the string it was.
    run(
      "UPDATE webhook_deliveries SET body = json_set(body, '$.payload', '' || json_set(json_extract(body, '$.payload'), '$.data.message', json(?))) " +
        "WHERE seq IN (SELECT seq FROM events WHERE message_id = ?) AND json_extract(body, '$.payload') LIKE '%\"message\":%'",
      [JSON.stringify(tombstone), messageId],
    );
  },
  state: () => NO_STATE,
  reads: (all) => ({
    cursor: async (id) => {
      const [r] = all('SELECT seq FROM webhook_cursors WHERE id = ?', [id]);
      return r ? Number(r[0]) : undefined;
    },
    deliveries: async (q) => {
      const where = ['webhook_id = ?'];
      const params: (string | number)[] = [q.webhook_id];
      if (q.status !== undefined) {
        where.push('status = ?');
        params.push(q.status);
      }
      if (q.id !== undefined) {
        where.push('id = ?');
        params.push(q.id);
      }
      if (q.due_by !== undefined) {
        where.push('next_attempt_at <= ?');
        params.push(q.due_by);
      }
      const dir = q.order === 'newest' ? 'DESC' : 'ASC';
      // The due read walks webhook_deliveries_due (webhook_id, status, next_attempt_at, seq, id) in order.
      const order = q.order === 'due' ? 'next_attempt_at ASC, seq ASC, id ASC' : `seq ${dir}, id ${dir}`;
      params.push(q.limit);
      return bodies(all, `SELECT body FROM webhook_deliveries WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ?`, params);
    },
    stats: async (webhookId) => stats(all, webhookId),
  }),
};

function stats(all: SqlAll, webhookId: string): DeliveryStats {
  // Counts over the (webhook_id, status, ...) indexes; each time is the first entry of one.
  const count = (status: string) =>
    Number(all('SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ? AND status = ?', [webhookId, status])[0]?.[0] ?? 0);
  const next = all(
    "SELECT next_attempt_at FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending' ORDER BY next_attempt_at LIMIT 1",
    [webhookId],
  )[0]?.[0];
  // Deliveries are queued in seq order as they are created: the first pending by seq is the oldest.
  const [first] = bodies(all, "SELECT body FROM webhook_deliveries WHERE webhook_id = ? AND status = 'pending' ORDER BY seq, id LIMIT 1", [
    webhookId,
  ]);
  return {
    pending: count('pending'),
    dead: count('dead'),
    ...(typeof next === 'string' ? { next_attempt_at: next } : {}),
    ...(first ? { oldest_pending_at: first.created_at } : {}),
  };
}
