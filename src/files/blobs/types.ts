// Where uploaded files' bytes live (#41 part 3): a blob store keeps each distinct content once,
// named by its SHA-256, whatever the store backend keeps the files' records in. Uploads are
// streamed to a local spool file first (spool.ts: hashed and counted as they arrive, refused as
// soon as they pass the limit), so a blob store only ever takes whole, hashed content.

import type { Readable } from 'node:stream';

/** A whole blob as the spool hands it over: a local file, its hash and size. */
export interface Spooled {
  path: string;
  sha256: string;
  size: number;
}

/** Bytes `start`..`end` of a blob, both inclusive (an HTTP Range). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface BlobStore {
  /** Where the bytes go, for operators (`svc doctor`, logs). */
  readonly kind: 'dir' | 'memory' | 'database' | 's3';
  /**
   * Keeps a spooled file's content under its hash; a blob already kept is left as it is. Once it
   * resolves the blob is durable; if it throws, no blob of that hash is half-written.
   */
  put(s: Spooled): Promise<void>;
  /** The blob's size, or undefined when it is not kept. */
  size(sha256: string): Promise<number | undefined>;
  /** The blob's bytes (a range of them), or undefined when it is not kept. */
  read(sha256: string, range?: ByteRange): Promise<Readable | undefined>;
  /** Forgets a blob (nothing when it is not kept). */
  delete(sha256: string): Promise<void>;
  close(): Promise<void>;
}

/** Why a blob could not be written or read: a stable code for the HTTP answer (413, 507, 503). */
export class BlobError extends Error {
  constructor(
    readonly code: 'too_large' | 'storage_full' | 'unavailable',
    message: string,
  ) {
    super(message);
  }
}

/** A SHA-256 in hex, as blobs are named: anything else is never a blob's name. */
export const isSha256 = (s: string): boolean => /^[0-9a-f]{64}$/.test(s);
