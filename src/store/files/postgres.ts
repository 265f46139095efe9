// The files concern in Postgres: its tables, the rows a batch reads and locks, its reads and the
// statement pieces of its effects.

import type { PgRows, PostgresAdapter } from '../part.js';
import type { FileState } from './decide.js';
import type { FileEffect, FileOp } from './ops.js';
import type { FileReads, FileRecord, FileRef } from './records.js';

const FILES_DDL = `
      CREATE TABLE IF NOT EXISTS S.files (
        id text PRIMARY KEY,
        sha256 text NOT NULL,
        created_at text COLLATE "C" NOT NULL,
        body text NOT NULL
      );
      CREATE INDEX IF NOT EXISTS files_by_time ON S.files (created_at);
      CREATE INDEX IF NOT EXISTS files_by_blob ON S.files (sha256);
      CREATE TABLE IF NOT EXISTS S.file_refs (
        seq bigserial,
        file_id text NOT NULL,
        message_id text NOT NULL,
        conv text NOT NULL,
        PRIMARY KEY (file_id, message_id)
      );
      CREATE INDEX IF NOT EXISTS file_refs_by_message ON S.file_refs (message_id);
    `;

const fileOf = (r: Record<string, unknown>): FileRecord => JSON.parse(String(r.body)) as FileRecord;

const idOf = (op: FileOp): string => (op.op === 'file.add' ? op.file.id : op.op === 'file.ref' ? op.ref.file_id : op.id);

export const postgresFiles: PostgresAdapter<FileOp, FileEffect, FileState, FileReads> = {
  migrations: [FILES_DDL],
  ctes(mine, sql) {
    const files = sql.table('files');
    const refs = sql.table('file_refs');
    const out: string[] = [];
    // One effect per file row and reference: the CTEs of a statement cannot see each other's rows.
    const last = new Map<string, FileEffect>();
    for (const e of mine)
      last.set(e.op === 'file.ref.put' ? `ref\u0000${e.ref.file_id}\u0000${e.ref.message_id}` : e.op === 'file.put' ? e.file.id : e.id, e);
    for (const e of last.values()) {
      if (e.op === 'file.put')
        out.push(
          `INSERT INTO ${files} (id, sha256, created_at, body) VALUES ${sql.row([e.file.id, e.file.sha256, e.file.created_at, JSON.stringify(e.file)])} ` +
            'ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body',
        );
      else if (e.op === 'file.delete') {
        const id = sql.param(e.id);
        out.push(`DELETE FROM ${files} WHERE id = ${id}`, `DELETE FROM ${refs} WHERE file_id = ${id}`);
      } else
        out.push(
          `INSERT INTO ${refs} (file_id, message_id, conv) VALUES ${sql.row([e.ref.file_id, e.ref.message_id, e.ref.conv])} ON CONFLICT DO NOTHING`,
        );
    }
    return out;
  },
  // A deleted message references nothing; a file it referenced may be collected at once (its
  // collection time, the created_at column, goes back to the start) once no other message does.
  forget: (ids, sql) => [
    `UPDATE ${sql.table('files')} SET created_at = '' WHERE id IN (SELECT file_id FROM ${sql.table('file_refs')} WHERE message_id = ANY(${ids}))`,
    `DELETE FROM ${sql.table('file_refs')} WHERE message_id = ANY(${ids})`,
  ],
  async prefetch(c, T, mine) {
    const ids = [...new Set(mine.map(idOf))].sort();
    // The file rows are the lock: a reference and a collection of one file are decided in turn.
    const rows = (await c.query(`SELECT id, body FROM ${T.table('files')} WHERE id = ANY($1) ORDER BY id FOR UPDATE`, [ids])).rows;
    const counts = (
      await c.query(`SELECT file_id, count(*)::int AS n FROM ${T.table('file_refs')} WHERE file_id = ANY($1) GROUP BY file_id`, [ids])
    ).rows;
    const files = new Map(rows.map((r) => [String(r.id), fileOf(r)]));
    const refs = new Map(counts.map((r) => [String(r.file_id), Number(r.n)]));
    return { file: (id) => files.get(id), refCount: (id) => refs.get(id) ?? 0 };
  },
  reads: (rows: PgRows, T) => {
    const F = T.table('files');
    const R = T.table('file_refs');
    return {
      get: async (id) => {
        const [r] = await rows(`SELECT body FROM ${F} WHERE id = $1`, [id]);
        return r ? fileOf(r) : undefined;
      },
      refs: async (id) =>
        (await rows(`SELECT file_id, message_id, conv FROM ${R} WHERE file_id = $1 ORDER BY seq`, [id])).map(
          (r): FileRef => ({ file_id: String(r.file_id), message_id: String(r.message_id), conv: String(r.conv) }),
        ),
      refsOfMessages: async (ids) =>
        (await rows(`SELECT file_id, message_id, conv FROM ${R} WHERE message_id = ANY($1) ORDER BY seq`, [[...ids]])).map(
          (r): FileRef => ({ file_id: String(r.file_id), message_id: String(r.message_id), conv: String(r.conv) }),
        ),
      unreferenced: async (before, limit) =>
        (
          await rows(
            `SELECT body FROM ${F} f WHERE created_at < $1 AND NOT EXISTS (SELECT 1 FROM ${R} r WHERE r.file_id = f.id) ORDER BY created_at LIMIT $2`,
            [before, limit],
          )
        ).map(fileOf),
      blobUsers: async (sha256) => Number((await rows(`SELECT count(*)::int AS n FROM ${F} WHERE sha256 = $1`, [sha256]))[0]?.n ?? 0),
    };
  },
};
