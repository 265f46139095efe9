// Blobs in memory (the memory backend): gone with the process, like everything it keeps.

import fs from 'node:fs';
import { Readable } from 'node:stream';
import type { BlobStore, ByteRange, Spooled } from './types.js';

export class MemoryBlobs implements BlobStore {
  readonly kind = 'memory';
  private readonly blobs = new Map<string, Buffer>();

  async put(s: Spooled): Promise<void> {
    try {
      if (!this.blobs.has(s.sha256)) this.blobs.set(s.sha256, await fs.promises.readFile(s.path));
    } finally {
      await fs.promises.rm(s.path, { force: true });
    }
  }

  async size(sha256: string): Promise<number | undefined> {
    return this.blobs.get(sha256)?.length;
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable | undefined> {
    const b = this.blobs.get(sha256);
    if (!b) return undefined;
    return Readable.from([range ? b.subarray(range.start, range.end + 1) : b]);
  }

  async delete(sha256: string): Promise<void> {
    this.blobs.delete(sha256);
  }

  async close(): Promise<void> {
    this.blobs.clear();
  }
}
