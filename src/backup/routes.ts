// POST /v1/backup: an online backup of the sqlite store into a folder on the server's machine.

import path from 'node:path';
import { AppError, badRequest, conflict } from '../errors.js';
import { ok } from '../http/openapi/op-doc.js';
import type { Route } from '../http/router.js';
import type { NetworkContext } from '../network/context.js';
import { prepareBackupDir } from '../store/sqlite/engine/backup.js';
import type { BackupManifest } from '../protocol/backup.js';
import { copyBlobFolder } from '../files/blob-folder.js';
import { filesDirOf } from '../files/open-blobs.js';

async function backup(ctx: NetworkContext, dir: string): Promise<BackupManifest> {
  const store = ctx.store;
  if (!store.backup) {
    throw conflict(
      `svc backup copies a sqlite store; this server's store is ${store.backend}` +
        (store.backend === 'postgres'
          ? ': back Postgres up with its own tools (pg_dump, pg_basebackup), see docs/operations.md ("Backup and restore")'
          : ' and keeps nothing to back up, see docs/operations.md ("Backup and restore")'),
    );
  }
  try {
    prepareBackupDir(dir);
  } catch (err) {
    throw badRequest((err as Error).message);
  }
  const meta = { network_id: ctx.config.network.id, ...(ctx.uid ? { network_uid: ctx.uid } : {}), svc_version: ctx.version };
  let result: BackupManifest;
  try {
    result = (await store.backup(dir, meta)) as BackupManifest;
  } catch (err) {
    // The disk refused (full, gone): what was copied stays without its backup.json, which a
    // restore refuses, and the store is as before.
    ctx.log('warn', 'backup failed', { dir, error: (err as Error).message });
    throw new AppError('service_unavailable', `the backup into ${dir} failed: ${(err as Error).message}`);
  }
  // Uploaded files (#41): their blob folder beside the database, copied after it, so every file a
  // backed-up record names is in it (blobs never change; one uploaded meanwhile may come too).
  try {
    const blobs = await copyBlobFolder(filesDirOf(ctx.config.store.path), path.join(dir, 'files'));
    result = { ...result, files_copied: blobs.files, files_bytes: blobs.bytes };
  } catch (err) {
    ctx.log('warn', 'backup of the files failed', { dir, error: (err as Error).message });
    throw new AppError('service_unavailable', `the backup of the files into ${dir} failed: ${(err as Error).message}`);
  }
  ctx.log('info', 'backup written', { dir, bytes: result.bytes });
  return result;
}

const FILE = {
  type: 'object',
  required: ['name', 'bytes'],
  properties: { name: { type: 'string' }, bytes: { type: 'integer', minimum: 0 } },
};

export const backupRoutes: Route[] = [
  {
    method: 'POST',
    path: '/v1/backup',
    action: 'admin',
    schema: 'backup',
    handler: async (c) => ({ body: await backup(c.ctx, (c.body as { dir: string }).dir) }),
    doc: {
      tag: 'operations',
      summary: 'Back the sqlite store up into a folder on the server, while writes go on.',
      description:
        "`dir` is an absolute path on the server's machine, new or empty (400 otherwise). The server runs a checkpoint, then copies `svc.db` and the journal tail in whole records with checkpoints held off; writes go on throughout, and every write acknowledged before the answer is in the backup. The folder's `backup.json` (this answer) names the network, the versions and the files. `svc restore` brings it back with the server stopped. 409 on a Postgres or memory store: docs/operations.md gives Postgres's own tools.",
      responses: ok({
        type: 'object',
        required: ['format', 'network_id', 'svc_version', 'schema_version', 'dir', 'store_file', 'taken_at', 'last_seq', 'files', 'bytes'],
        properties: {
          format: { type: 'integer', description: 'The manifest format (1).' },
          network_id: { type: 'string' },
          network_uid: { type: 'string', description: "The network's unique id kept in its store." },
          svc_version: { type: 'string' },
          schema_version: { type: 'integer', description: "The store's schema version." },
          dir: { type: 'string' },
          store_file: { type: 'string', description: "The database file's name; the journal generations are named after it." },
          taken_at: { type: 'string', format: 'date-time' },
          last_seq: {
            type: 'integer',
            minimum: 0,
            description: "The store's last event seq the backup holds: the restored store's last event seq.",
          },
          files: { type: 'array', items: FILE },
          bytes: { type: 'integer', minimum: 0, description: 'Bytes copied, all files.' },
          files_copied: { type: 'integer', minimum: 0, description: 'Uploaded files (blobs) copied into `files/` of the folder.' },
          files_bytes: { type: 'integer', minimum: 0, description: "The uploaded files' bytes." },
        },
      }),
      errors: [409, 503],
    },
  },
];
