// The applied hooks in sqlite: their table, their SQL and how their effects are applied.

import type { SqliteAdapter } from '../../part.js';
import { NO_STATE, type HooksState } from './decide.js';
import type { HookEffect } from './ops.js';
import type { AppliedHookRecord, HookReads } from './records.js';

/** The table, as migration 10 of sqlite/schema.ts created it before the part kept its own versions. */
const HOOKS_DDL = `
      CREATE TABLE IF NOT EXISTS applied_hooks (
        kind TEXT NOT NULL,
        id TEXT NOT NULL,
        body TEXT NOT NULL,
        applied_at TEXT NOT NULL,
        PRIMARY KEY (kind, id)
      ) WITHOUT ROWID;
    `;

export const sqliteHooks: SqliteAdapter<HookEffect, HooksState, HookReads> = {
  migrations: [HOOKS_DDL],
  apply(run, e) {
    if (e.op === 'hook.delete') {
      run('DELETE FROM applied_hooks WHERE kind = ? AND id = ?', [e.kind, e.id]);
      return;
    }
    const h = e.hook;
    run(
      'INSERT INTO applied_hooks (kind, id, body, applied_at) VALUES (?, ?, ?, ?) ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body, applied_at = excluded.applied_at',
      [h.kind, h.id, h.body, h.applied_at],
    );
  },
  state: () => NO_STATE,
  reads: (all) => ({
    list: async () =>
      all('SELECT kind, id, body, applied_at FROM applied_hooks ORDER BY kind, id', []).map((r) => ({
        kind: r[0] as AppliedHookRecord['kind'],
        id: String(r[1]),
        body: String(r[2]),
        applied_at: String(r[3]),
      })),
  }),
};
