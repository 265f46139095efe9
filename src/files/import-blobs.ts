// The files' bytes of an export made `--with-files` (`file_blob` lines, src/export/with-files.ts),
// as `svc import` reads them: each blob's pieces are written in order into a file of a private
// temporary folder, hashed as they come; a blob whose bytes do not match its name refuses the
// import. Only once the import has written the store are they put into its blob store (a refused
// import leaves none behind); the folder goes either way.

import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ExportFileError, type BlobPiece } from '../export/import-lines.js';
import { isSha256 } from './blobs/types.js';
import type { Blobs } from './open-blobs.js';

interface Incoming {
  path: string;
  next: number;
  size: number;
  hash: Hash;
}

export class IncomingBlobs {
  private readonly blobs = new Map<string, Incoming>();
  private dir: string | undefined;

  async piece(p: BlobPiece, line: number): Promise<void> {
    if (!isSha256(p.sha256)) throw new ExportFileError(`line ${line}: a file_blob line whose sha256 is no SHA-256; the file is damaged`);
    this.dir ??= await fs.promises.mkdtemp(path.join(os.tmpdir(), 'svc-import-files-'));
    let b = this.blobs.get(p.sha256);
    if (!b) {
      b = { path: path.join(this.dir, p.sha256), next: 0, size: 0, hash: createHash('sha256') };
      this.blobs.set(p.sha256, b);
    }
    if (p.n !== b.next)
      throw new ExportFileError(`line ${line}: piece ${p.n} of file ${p.sha256} where piece ${b.next} was due; the file is damaged`);
    b.next++;
    b.size += p.data.length;
    b.hash.update(p.data);
    await fs.promises.appendFile(b.path, p.data);
  }

  /** Checks every blob against its name (all lines read). */
  async end(): Promise<void> {
    for (const [sha256, b] of this.blobs) {
      if (b.hash.digest('hex') !== sha256)
        throw new ExportFileError(`the bytes of file ${sha256} do not match their hash; the file is damaged`);
    }
  }

  /** Puts every blob into the store's blob store; returns how many. */
  async keep(target: Blobs): Promise<number> {
    for (const [sha256, b] of this.blobs) {
      const fh = await fs.promises.open(b.path, 'r+');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
      // The spool folder of a folder store is where a blob is renamed from (same filesystem).
      const spooled = path.join(target.spoolDir, `import-${sha256}`);
      await fs.promises.mkdir(target.spoolDir, { recursive: true });
      await fs.promises.copyFile(b.path, spooled);
      await target.store.put({ path: spooled, sha256, size: b.size });
    }
    return this.blobs.size;
  }

  async discard(): Promise<void> {
    if (this.dir) await fs.promises.rm(this.dir, { recursive: true, force: true });
  }
}
