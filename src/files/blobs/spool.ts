// An upload on its way in: streamed into a temporary file beside the other spooled uploads,
// hashed and counted as it arrives. Past `maxBytes` it stops at once (the rest is not read); a
// full disk, a stalled or broken stream, and any other failure remove the temporary file, so
// nothing half-written is ever left.

import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type TransformCallback } from 'node:stream';
import { BlobError, type Spooled } from './types.js';

/** What a failed write looks like to a caller: a full disk is 507, the rest 503. */
export function storageError(err: unknown, what: string): BlobError {
  if (err instanceof BlobError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new BlobError('storage_full', `${what}: the disk is full`);
  return new BlobError('unavailable', `${what}: ${(err as Error).message}`);
}

/** Hashes and counts what passes; fails the stream past `max` bytes. */
class Meter extends Transform {
  readonly hash = createHash('sha256');
  size = 0;
  constructor(private readonly max: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.max) {
      done(new BlobError('too_large', `the file is larger than the limit of ${this.max} bytes`));
      return;
    }
    this.hash.update(chunk);
    done(null, chunk);
  }
}

/**
 * Streams `body` into a new file under `dir`, fsynced, and gives its path, hash and size. The
 * caller owns the file (and removes it once a blob store has taken it).
 */
export async function spool(body: NodeJS.ReadableStream | AsyncIterable<Uint8Array>, dir: string, maxBytes: number): Promise<Spooled> {
  const file = path.join(dir, `upload-${randomUUID()}`);
  const meter = new Meter(maxBytes);
  let out: fs.WriteStream | undefined;
  try {
    await fs.promises.mkdir(dir, { recursive: true });
    out = fs.createWriteStream(file, { flags: 'wx' });
    await pipeline(body as AsyncIterable<Uint8Array>, meter, out);
    const fh = await fs.promises.open(file, 'r+');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    return { path: file, sha256: meter.hash.digest('hex'), size: meter.size };
  } catch (err) {
    // A body that fails at once fails the pipeline while the file is still being opened: removed
    // before the open completes, it would be created after. So the stream lets go of it first.
    const opened = out;
    if (opened && !opened.closed) await new Promise<void>((closed) => opened.once('close', closed));
    await fs.promises.rm(file, { force: true });
    throw storageError(err, 'the upload could not be stored');
  }
}
