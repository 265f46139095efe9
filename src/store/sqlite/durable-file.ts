// Replacing a file so that a crash leaves either the old or the new content: a temp file written
// and fsynced, renamed over, and the directory fsynced. Checkpoints, redo files and recovery use it.

import fs from 'node:fs';
import path from 'node:path';
import { fsyncDir } from './journal.js';

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
