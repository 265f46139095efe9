// The expiring key/value table's journaled effects and what each does in SQL (#27 part 2). Each
// carries every time it depends on, so a replay deletes and marks exactly what the live write did.

import type { SqlValue } from 'sql.js';
import type { KvPut } from '../kv.js';

/** Runs one statement (apply.ts's Run, repeated here so the two files form no cycle). */
type Run = (sql: string, params?: SqlValue[]) => void;

export type KvEffect =
  | { op: 'kv.put'; entry: KvPut }
  | { op: 'kv.delete'; kind: string; id: string }
  | { op: 'kv.consume'; kind: string; id: string; at: number }
  | { op: 'kv.delete_grant'; grant_id: string }
  | { op: 'kv.sweep'; now: number };

/** Applies one kv effect. */
export function applyKv(run: Run, op: KvEffect): void {
  switch (op.op) {
    case 'kv.put': {
      const e = op.entry;
      run(
        'INSERT INTO kv (kind, id, value, expires_at, consumed_at, lookup, grant_id) VALUES (?, ?, ?, ?, NULL, ?, ?) ' +
          'ON CONFLICT (kind, id) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at, consumed_at = NULL, ' +
          'lookup = excluded.lookup, grant_id = excluded.grant_id',
        [e.kind, e.id, e.value, e.expires_at ?? null, e.lookup ?? null, e.grant_id ?? null],
      );
      break;
    }
    case 'kv.delete':
      run('DELETE FROM kv WHERE kind = ? AND id = ?', [op.kind, op.id]);
      break;
    case 'kv.consume':
      run('UPDATE kv SET consumed_at = ? WHERE kind = ? AND id = ? AND consumed_at IS NULL', [op.at, op.kind, op.id]);
      break;
    case 'kv.delete_grant':
      run('DELETE FROM kv WHERE grant_id = ?', [op.grant_id]);
      break;
    case 'kv.sweep':
      run('DELETE FROM kv WHERE expires_at <= ?', [op.now]);
      break;
  }
}
