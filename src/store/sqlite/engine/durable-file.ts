// Files that survive a crash: replacing one so that a crash leaves either the old or the new content
// (a temp file written and fsynced, renamed over, the directory fsynced), and the directory fsync
// that makes renames, creations and deletions durable. Journals, checkpoints, redo files and
// recovery use them.

import fs from 'node:fs';
import path from 'node:path';
import { StoreError } from '../../types.js';

/** What goes into the file: bytes, or a function that writes them through the handle. */
export type FileContent = Uint8Array | string | ((fh: fs.promises.FileHandle) => Promise<void>);

/** Replaces `file` with `content` durably (owner-only permissions). */
export async function writeFileDurably(file: string, content: FileContent): Promise<void> {
  const tmp = `${file}.tmp`;
  try {
    const fh = await fs.promises.open(tmp, 'w', 0o600);
    try {
      if (typeof content === 'function') await content(fh);
      else await fh.writeFile(content);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.promises.rename(tmp, file);
  } catch (err) {
    await fs.promises.rm(tmp, { force: true }).catch(() => {});
    throw err;
  }
  await fsyncDir(path.dirname(file));
}

/** fsyncs a directory so renames, creations and deletions in it survive a crash. */
export async function fsyncDir(dir: string): Promise<void> {
  let handle: fs.promises.FileHandle | undefined;
  try {
    handle = await fs.promises.open(dir, 'r');
    await handle.sync();
  } catch (err) {
    // Some platforms cannot fsync a directory; there the rename is as durable as it gets.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EINVAL' && code !== 'EPERM') throw err;
  } finally {
    await handle?.close();
  }
}

/** A write the disk refused, as the store reports it: nothing was saved. */
export function unavailable(err: unknown): StoreError {
  const e = err as NodeJS.ErrnoException | undefined;
  return new StoreError('unavailable', `the store cannot persist writes: ${e?.code ?? e?.message ?? String(err)}`);
}
