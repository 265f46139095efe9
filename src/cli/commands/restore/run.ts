// svc restore DIR: the backup's files into the place of the config's sqlite store, with the store
// lock held (a running server holds it: the restore is refused, as `svc store recover` is). It
// refuses, without --force, a backup of another network (its network id differs from the
// config's, or its network uid from the one the store in its place keeps: two networks may share
// an id) and a place where a store already holds data; with --force that store's files are
// moved into `<store>.before-restore-<time>/` beside it, never deleted. The store is then opened
// once, which replays the journal tail as a start would: a backup that does not open is reported
// here, not at the next start.

import path from 'node:path';
import { ConfigError, loadConfig } from '../../../config/load.js';
import { storedUid } from '../../../network/uid.js';
import { copyBlobFolder } from '../../../files/blob-folder.js';
import { filesDirOf } from '../../../files/open-blobs.js';
import { openStore } from '../../../store/open.js';
import { readBackup, restoreFiles, storeFiles } from '../../../store/sqlite/engine/restore.js';
import { StoreError } from '../../../store/types.js';
import { json } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { lockConfiguredStore } from '../../store-lock.js';
import { sizeOf } from '../backup/run.js';

export interface RestoreOptions {
  config: string;
  force?: boolean;
  json?: boolean;
  debug?: boolean;
}

export async function restoreCommand(io: Io, dir: string, o: RestoreOptions): Promise<number> {
  const fail = (msg: string) => {
    io.err(`svc restore: ${msg}`);
    return EXIT.failure;
  };
  let cfg;
  try {
    cfg = loadConfig(path.resolve(o.config), io.env, 'client').config;
  } catch (err) {
    if (err instanceof ConfigError) return fail(err.message);
    throw err;
  }
  if (cfg.store.backend !== 'sqlite') {
    return fail(
      `store.backend is ${cfg.store.backend}; a backup restores into a sqlite store (Postgres: its own tools, see docs/operations.md "Backup and restore")`,
    );
  }
  let m;
  try {
    m = readBackup(path.resolve(dir));
  } catch (err) {
    return fail((err as Error).message);
  }
  if (m.network_id !== cfg.network.id && !o.force) {
    return fail(
      `the backup is of network ${m.network_id}, the config's network is ${cfg.network.id}; pass --force to restore it anyway (the store becomes that network's)`,
    );
  }
  const db = path.resolve(cfg.store.path);
  // A running server holds the store: the restore waits for it to be stopped.
  const lock = await lockConfiguredStore(io, 'svc restore', cfg.store);
  if (lock === 'refused') return EXIT.failure;
  try {
    const held = storeFiles(db);
    const here = held.length > 0 && !o.force && m.network_uid !== undefined ? await uidOf(cfg.store) : undefined;
    if (here !== undefined && here !== m.network_uid) {
      return fail(
        `the backup is of network ${m.network_id} with uid ${m.network_uid}, the store at ${db} is network uid ${here}: another network that shares its id; pass --force to restore it anyway (the store's files are moved aside)`,
      );
    }
    if (held.length > 0 && !o.force) {
      return fail(
        `${db} already holds a store (${held.length} file(s)); pass --force to move its files aside into ${path.basename(db)}.before-restore-<time>/ and restore over it`,
      );
    }
    const aside = held.length > 0 ? `${db}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}` : undefined;
    await restoreFiles(path.resolve(dir), m, db, aside);
    // Uploaded files (#41): the backup's blobs join the folder beside the database (content-named,
    // so those already there are the same bytes).
    const blobs = await copyBlobFolder(path.join(path.resolve(dir), 'files'), filesDirOf(db));
    // Opened once: the journal tail replays onto the image as at a start (a failure names the record).
    const store = await openStore(cfg.store);
    const stats = await store.stats().finally(() => store.close());
    const result = {
      restored: m.dir,
      store: db,
      network_id: m.network_id,
      taken_at: m.taken_at,
      messages: stats.messages,
      last_event_seq: stats.last_event_seq,
      files_restored: blobs.files,
      ...(aside ? { moved_aside: aside } : {}),
    };
    if (o.json) io.out(json(result));
    else {
      io.out(
        `restored the backup of network ${m.network_id} taken at ${m.taken_at} (${sizeOf(m.bytes)}) into ${db}: ${stats.messages} messages, last event seq ${stats.last_event_seq}, ${blobs.files} uploaded files`,
      );
      if (aside) io.out(`the store that was there is kept in ${aside}`);
      io.out('start the server with `svc serve`');
    }
    return EXIT.ok;
  } catch (err) {
    if (o.debug) io.err(String((err as Error).stack));
    return fail(err instanceof StoreError ? `the restored store does not open: ${err.message}` : (err as Error).message);
  } finally {
    lock?.release();
  }
}

/**
 * The network uid the store in the restore's place keeps (opened once, under the lock the restore
 * holds); undefined when it keeps none or does not open (the other refusals then apply).
 */
async function uidOf(store: Parameters<typeof openStore>[0]): Promise<string | undefined> {
  try {
    const s = await openStore(store);
    try {
      return await storedUid(s.kv);
    } finally {
      await s.close();
    }
  } catch {
    return undefined;
  }
}
