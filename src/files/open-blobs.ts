// Which blob store a server's files use, from its store backend: sqlite keeps them beside its
// database (`.svc/files/`, by hash), memory in memory, PostgreSQL in the database (chunked) or in
// an S3-compatible bucket (`store.files`), so every instance serves every file.

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { processAlive } from '../config/runtime-file.js';
import { type Config, DEFAULT_STORE_SCHEMA } from '../config/types.js';
import { BlobLocks } from './blob-lock.js';
import type { BlobStore } from './blobs/types.js';

/** A blob store and the folder uploads are spooled into on their way to it. */
export interface Blobs {
  store: BlobStore;
  spoolDir: string;
  /** Held around every change to a blob's users and the blob itself (blob-lock.ts). */
  locks: BlobLocks;
  close(): Promise<void>;
}

/** The folder of a sqlite store's files: `files/` beside its database. */
export const filesDirOf = (storePath: string): string => path.join(path.dirname(storePath), 'files');

/** The start of a spool folder's name in the temporary folder: `svc-uploads-<pid>-<random>`. */
const SPOOL_PREFIX = 'svc-uploads-';
/** A spool folder's name, its pid captured (the dash after it: an earlier version's random names have none there). */
const SPOOL_NAME = new RegExp(`^${SPOOL_PREFIX}(\\d+)-`);

/**
 * Removes the spool folders of processes that are gone: a kill -9 during an upload leaves its
 * folder, and the part of the upload in it, behind. A folder whose process runs (or whose pid
 * another process took since) is left alone; a zombie's goes, as its lock file would.
 */
async function sweepSpools(): Promise<void> {
  const tmp = os.tmpdir();
  const names = await readdir(tmp).catch(() => []);
  for (const name of names) {
    const pid = Number(SPOOL_NAME.exec(name)?.[1]);
    if (pid > 0 && !processAlive(pid)) await rm(path.join(tmp, name), { recursive: true, force: true }).catch(() => {});
  }
}

export async function openBlobs(cfg: Config['store']): Promise<Blobs> {
  if (cfg.backend === 'sqlite') {
    const { DirBlobs } = await import('./blobs/dir.js');
    const store = new DirBlobs(filesDirOf(cfg.path));
    // Uploads a crash cut short: none is in progress at start (the folder is this server's alone).
    await store.sweep();
    return { store, spoolDir: store.spoolDir(), locks: new BlobLocks(), close: () => store.close() };
  }
  // Memory and Postgres spool into a private temporary folder of this process, named by its pid.
  await sweepSpools();
  const spoolDir = await mkdtemp(path.join(os.tmpdir(), `${SPOOL_PREFIX}${process.pid}-`));
  const closeWith = (store: BlobStore, after?: () => Promise<void>) => async () => {
    await store.close();
    await after?.();
    await rm(spoolDir, { recursive: true, force: true });
  };
  if (cfg.backend === 'memory') {
    const { MemoryBlobs } = await import('./blobs/memory.js');
    const store = new MemoryBlobs();
    return { store, spoolDir, locks: new BlobLocks(), close: closeWith(store) };
  }
  const files = cfg.files ?? { backend: 'database' as const };
  if (files.backend === 's3') {
    const { S3Blobs } = await import('./blobs/s3.js');
    const store = new S3Blobs({
      bucket: files.bucket!,
      region: files.region ?? 'us-east-1',
      ...(files.endpoint ? { endpoint: files.endpoint } : {}),
      ...(files.prefix ? { prefix: files.prefix } : {}),
      ...(files.force_path_style !== undefined ? { forcePathStyle: files.force_path_style } : {}),
      ...(files.credentials ? { credentials: files.credentials } : {}),
    });
    return { store, spoolDir, locks: new BlobLocks(), close: closeWith(store) };
  }
  const [{ default: pg }, { PostgresBlobs }] = await Promise.all([import('pg'), import('./blobs/postgres.js')]);
  // A pool of its own, small: blob reads and writes never wait behind the store's messages.
  const pool = new pg.Pool({ connectionString: cfg.url, max: 4 });
  pool.on('error', () => {});
  const store = new PostgresBlobs(pool, cfg.schema ?? DEFAULT_STORE_SCHEMA);
  try {
    await store.migrate();
  } catch (err) {
    await pool.end();
    await rm(spoolDir, { recursive: true, force: true });
    throw err;
  }
  return { store, spoolDir, locks: new BlobLocks(), close: closeWith(store, () => pool.end()) };
}
