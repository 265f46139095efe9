// A sqlite store's blob folder (.svc/files/) copied by `svc backup` and brought back by `svc
// restore`. Blobs are named by their content's hash and never change, so a copy is safe while the
// server runs (a blob being written is in tmp/, which is left out, and renamed whole), and a
// restore may merge into a folder that holds blobs already: a name holds the same bytes everywhere.

import fs from 'node:fs';
import path from 'node:path';
import { isSha256 } from './blobs/types.js';

/** Copies every blob of `from` into `to` (made; each file written, fsynced and renamed); returns the files and bytes copied. */
export async function copyBlobFolder(from: string, to: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  if (!fs.existsSync(from)) return { files, bytes };
  for (const prefix of await fs.promises.readdir(from)) {
    if (!/^[0-9a-f]{2}$/.test(prefix)) continue;
    for (const name of await fs.promises.readdir(path.join(from, prefix))) {
      if (!isSha256(name)) continue;
      const target = path.join(to, prefix, name);
      if (fs.existsSync(target)) continue;
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      const part = `${target}.part`;
      await fs.promises.copyFile(path.join(from, prefix, name), part, fs.constants.COPYFILE_FICLONE);
      const fh = await fs.promises.open(part, 'r+');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
      await fs.promises.rename(part, target);
      files++;
      bytes += (await fs.promises.stat(target)).size;
    }
  }
  return { files, bytes };
}
