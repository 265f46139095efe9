// The applied hooks in Postgres: their table, their reads and the statement pieces of their effects.

import type { PostgresAdapter } from '../../part.js';
import { NO_STATE, type HooksState } from './decide.js';
import { hookKey, type HookEffect, type HooksApplyOp } from './ops.js';
import type { AppliedHookRecord, HookReads } from './records.js';

/** The table (`S` is the schema), as migration 7 of postgres/schema.ts created it before the part kept its own versions. */
const HOOKS_DDL = `
      CREATE TABLE IF NOT EXISTS S.applied_hooks (
        kind text NOT NULL,
        id text NOT NULL,
        body text NOT NULL,
        applied_at text NOT NULL,
        PRIMARY KEY (kind, id)
      );
    `;

export const postgresHooks: PostgresAdapter<HooksApplyOp, HookEffect, HooksState, HookReads> = {
  migrations: [HOOKS_DDL],
  ctes(mine, sql) {
    const table = sql.table('applied_hooks');
    // The CTEs of a statement run on one snapshot and an upsert cannot touch a row twice, so a
    // batch is first reduced to each hook's last effect (two applies of one batch may name it).
    const last = new Map<string, HookEffect>();
    for (const e of mine) {
      const k = e.op === 'hook.put' ? hookKey(e.hook) : hookKey(e);
      last.delete(k);
      last.set(k, e);
    }
    return [...last.values()].map((e) => {
      if (e.op === 'hook.delete') return `DELETE FROM ${table} WHERE kind = ${sql.param(e.kind)} AND id = ${sql.param(e.id)}`;
      const h = e.hook;
      return (
        `INSERT INTO ${table} (kind, id, body, applied_at) VALUES ${sql.row([h.kind, h.id, h.body, h.applied_at])} ` +
        'ON CONFLICT (kind, id) DO UPDATE SET body = EXCLUDED.body, applied_at = EXCLUDED.applied_at'
      );
    });
  },
  prefetch: async () => NO_STATE,
  reads: (rows, T) => ({
    async list() {
      const found = await rows(`SELECT kind, id, body, applied_at FROM ${T.table('applied_hooks')} ORDER BY kind, id`, []);
      return found.map((r) => ({
        kind: r.kind as AppliedHookRecord['kind'],
        id: String(r.id),
        body: String(r.body),
        applied_at: String(r.applied_at),
      }));
    },
  }),
};
