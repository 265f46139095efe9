// Bringing an online backup (backup.ts) back into a sqlite store's place, with no server running
// (`svc restore`): the backup's files are checked against its manifest, a store already there is
// moved aside into a folder of its own (never deleted), and the files are copied in under the
// store's own name. The caller then opens the store once: recovery replays the journal tail onto
// the image as after a crash, so a backup that does not replay cleanly is found before a start.

import fs from 'node:fs';
import path from 'node:path';
import type { BackupManifest } from '../../../protocol/backup.js';
import { BACKUP_FORMAT, MANIFEST } from './backup.js';
import { fsyncDir } from './durable-file.js';
import { listJournals } from './journal.js';
import { searchFileOf } from '../search-index.js';
import { pagesPath } from './page-file.js';

/** Reads and checks a backup folder's manifest and files; throws a message for the operator. */
export function readBackup(dir: string): BackupManifest {
  const file = path.join(dir, MANIFEST);
  let m: BackupManifest;
  try {
    m = JSON.parse(fs.readFileSync(file, 'utf8')) as BackupManifest;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'ENOENT'
        ? `${dir} holds no ${MANIFEST}: not a backup written by svc backup (or one that did not finish)`
        : `${file}: ${(err as Error).message}`,
    );
  }
  if (m?.format !== BACKUP_FORMAT) throw new Error(`${file}: format ${String(m?.format)} is not one this svc reads (${BACKUP_FORMAT})`);
  if (typeof m.store_file !== 'string' || !Array.isArray(m.files)) throw new Error(`${file}: store_file or files missing`);
  for (const f of m.files) {
    if (typeof f?.name !== 'string' || f.name !== path.basename(f.name) || !f.name.startsWith(m.store_file)) {
      throw new Error(`${file}: ${JSON.stringify(f?.name)} is not a file of the store ${m.store_file}`);
    }
    let size: number;
    try {
      size = fs.statSync(path.join(dir, f.name)).size;
    } catch {
      throw new Error(`${dir}: ${f.name} is missing`);
    }
    if (size !== f.bytes) throw new Error(`${dir}: ${f.name} has ${size} bytes, the manifest says ${f.bytes}`);
  }
  return m;
}

/**
 * The files of the store at `db` that exist: the database, its redo file, its search file and that
 * file's redo file (derived: not in a backup, built again at the first open; set aside with the
 * rest, so that a restored store never reads the index of another state), its journals.
 */
export function storeFiles(db: string): string[] {
  const search = searchFileOf(db);
  const out = [db, pagesPath(db), search, pagesPath(search)].filter((f) => fs.existsSync(f));
  return [...out, ...listJournals(db).map((j) => j.path)];
}

/**
 * Copies the backup in `dir` into the place of the store at `db`. The files a store there had
 * are moved into `aside` first (a new folder beside it), when given; without it they must be none.
 */
export async function restoreFiles(dir: string, m: BackupManifest, db: string, aside?: string): Promise<void> {
  const existing = storeFiles(db);
  if (existing.length > 0) {
    if (!aside) throw new Error(`${db}: a store is there already`);
    await fs.promises.mkdir(aside, { recursive: true, mode: 0o700 });
    for (const f of existing) await fs.promises.rename(f, path.join(aside, path.basename(f)));
    await fsyncDir(aside);
  }
  await fs.promises.mkdir(path.dirname(db), { recursive: true });
  for (const f of m.files) {
    const to = db + f.name.slice(m.store_file.length);
    await fs.promises.copyFile(path.join(dir, f.name), to, fs.constants.COPYFILE_EXCL);
    const fh = await fs.promises.open(to, 'r+');
    await fh.sync().finally(() => fh.close());
  }
  await fsyncDir(path.dirname(db));
}
