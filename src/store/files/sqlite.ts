// The files concern in sqlite: its tables, its SQL and how its effects are applied.

import type { SqlAll, SqliteAdapter } from '../part.js';
import type { FileState } from './decide.js';
import type { FileEffect } from './ops.js';
import type { FileReads, FileRecord, FileRef } from './records.js';

const FILES_DDL = `
      CREATE TABLE IF NOT EXISTS files (
        id TEXT PRIMARY KEY,
        sha256 TEXT NOT NULL,
        created_at TEXT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS files_by_time ON files (created_at);
      CREATE INDEX IF NOT EXISTS files_by_blob ON files (sha256);
      CREATE TABLE IF NOT EXISTS file_refs (
        file_id TEXT NOT NULL,
        message_id TEXT NOT NULL,
        conv TEXT NOT NULL,
        seq INTEGER NOT NULL,
        PRIMARY KEY (file_id, message_id)
      );
      CREATE INDEX IF NOT EXISTS file_refs_by_message ON file_refs (message_id);
    `;

const fileOf = (all: SqlAll, id: string): FileRecord | undefined => {
  const [r] = all('SELECT body FROM files WHERE id = ?', [id]);
  return r ? (JSON.parse(r[0] as string) as FileRecord) : undefined;
};
const refCount = (all: SqlAll, id: string): number => Number(all('SELECT count(*) FROM file_refs WHERE file_id = ?', [id])[0]![0]);

export const sqliteFiles: SqliteAdapter<FileEffect, FileState, FileReads> = {
  migrations: [FILES_DDL],
  apply(run, e) {
    if (e.op === 'file.put')
      run('INSERT OR REPLACE INTO files (id, sha256, created_at, body) VALUES (?, ?, ?, ?)', [
        e.file.id,
        e.file.sha256,
        e.file.created_at,
        JSON.stringify(e.file),
      ]);
    else if (e.op === 'file.delete') {
      run('DELETE FROM files WHERE id = ?', [e.id]);
      run('DELETE FROM file_refs WHERE file_id = ?', [e.id]);
    } else
      run(
        'INSERT OR IGNORE INTO file_refs (file_id, message_id, conv, seq) VALUES (?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM file_refs))',
        [e.ref.file_id, e.ref.message_id, e.ref.conv],
      );
  },
  // A deleted message references nothing; a file it referenced may be collected at once (its
  // collection time, the created_at column, goes back to the start) once no other message does.
  forget(run, messageId) {
    run("UPDATE files SET created_at = '' WHERE id IN (SELECT file_id FROM file_refs WHERE message_id = ?)", [messageId]);
    run('DELETE FROM file_refs WHERE message_id = ?', [messageId]);
  },
  state: (all) => ({ file: (id) => fileOf(all, id), refCount: (id) => refCount(all, id) }),
  reads: (all) => ({
    get: async (id) => fileOf(all, id),
    refs: async (id) =>
      all('SELECT file_id, message_id, conv FROM file_refs WHERE file_id = ? ORDER BY seq', [id]).map(
        (r): FileRef => ({ file_id: r[0] as string, message_id: r[1] as string, conv: r[2] as string }),
      ),
    refsOfMessages: async (ids) =>
      ids.length === 0
        ? []
        : all(`SELECT file_id, message_id, conv FROM file_refs WHERE message_id IN (${ids.map(() => '?').join(', ')}) ORDER BY seq`, [
            ...ids,
          ]).map((r): FileRef => ({ file_id: r[0] as string, message_id: r[1] as string, conv: r[2] as string })),
    unreferenced: async (before, limit) =>
      all(
        'SELECT body FROM files f WHERE created_at < ? AND NOT EXISTS (SELECT 1 FROM file_refs r WHERE r.file_id = f.id) ORDER BY created_at LIMIT ?',
        [before, limit],
      ).map((r) => JSON.parse(r[0] as string) as FileRecord),
    blobUsers: async (sha256) => Number(all('SELECT count(*) FROM files WHERE sha256 = ?', [sha256])[0]![0]),
  }),
};
