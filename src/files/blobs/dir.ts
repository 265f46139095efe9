// Blobs as files (the sqlite backend's `.svc/files/`): `<dir>/<first two hex>/<sha256>`. A blob
// arrives as a spooled file in the same folder tree, fsynced, and is renamed into its name, so a
// kill -9 at any moment leaves either no file of that name or the whole one; the folder is
// fsynced after the rename so the name survives a power loss.

import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { storageError } from './spool.js';
import { isSha256, type BlobStore, type ByteRange, type Spooled } from './types.js';

export class DirBlobs implements BlobStore {
  readonly kind = 'dir';

  /** `dir` holds the blobs; spooled uploads are expected in `spoolDir()` (same filesystem, so they rename). */
  constructor(private readonly dir: string) {}

  /** Where uploads are spooled: inside the blob folder, so a blob is one rename away. */
  spoolDir(): string {
    return path.join(this.dir, 'tmp');
  }

  private pathOf(sha256: string): string {
    if (!isSha256(sha256)) throw new Error(`not a blob name: ${sha256}`);
    return path.join(this.dir, sha256.slice(0, 2), sha256);
  }

  async put(s: Spooled): Promise<void> {
    const to = this.pathOf(s.sha256);
    try {
      if (await this.size(s.sha256)) {
        await fs.promises.rm(s.path, { force: true });
        return;
      }
      await fs.promises.mkdir(path.dirname(to), { recursive: true });
      await fs.promises.rename(s.path, to);
      const d = await fs.promises.open(path.dirname(to), 'r');
      try {
        await d.sync();
      } finally {
        await d.close();
      }
    } catch (err) {
      await fs.promises.rm(s.path, { force: true });
      throw storageError(err, `blob ${s.sha256} could not be kept`);
    }
  }

  async size(sha256: string): Promise<number | undefined> {
    if (!isSha256(sha256)) return undefined;
    try {
      return (await fs.promises.stat(this.pathOf(sha256))).size;
    } catch {
      return undefined;
    }
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable | undefined> {
    if ((await this.size(sha256)) === undefined) return undefined;
    return fs.createReadStream(this.pathOf(sha256), range ? { start: range.start, end: range.end } : {});
  }

  async delete(sha256: string): Promise<void> {
    if (isSha256(sha256)) await fs.promises.rm(this.pathOf(sha256), { force: true });
  }

  /** Removes spooled uploads a crash left (at start: none can be in progress). */
  async sweep(): Promise<void> {
    await fs.promises.rm(this.spoolDir(), { recursive: true, force: true });
  }

  async close(): Promise<void> {}
}
