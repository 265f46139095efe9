// Blobs in an S3-compatible bucket (`store.files.backend: s3`): for deployments that have one,
// every instance reads and writes the same bucket, and the database stays small. An object is
// `<prefix><sha256>`; a PUT is atomic (an object is whole or absent), so a crash mid-upload leaves
// nothing under the name. Only what svc needs of S3 is used (Head, Put, Get with Range, Delete),
// which every S3-compatible server has; checksums are sent only where a request requires them, as
// several such servers refuse the SDK's default streaming checksums.

import fs from 'node:fs';
import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { storageError } from './spool.js';
import { isSha256, type BlobStore, type ByteRange, type Spooled } from './types.js';

export interface S3Options {
  bucket: string;
  region: string;
  /** A non-AWS server (its URL); path-style requests are used then. */
  endpoint?: string;
  /** Prepended to every object's name (e.g. `svc/files/`). */
  prefix?: string;
  /** Path-style requests (the bucket in the path); default: when `endpoint` is set. */
  forcePathStyle?: boolean;
  /** Absent: the SDK's own chain (environment, shared files, instance roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** The bytes `skip`.. of a stream, `take` of them at most. */
async function* slice(r: AsyncIterable<Uint8Array>, skip: number, take: number): AsyncGenerator<Uint8Array> {
  for await (const c of r) {
    const from = Math.min(skip, c.length);
    skip -= from;
    const part = c.subarray(from, from + take);
    take -= part.length;
    if (part.length > 0) yield part;
    if (take === 0) return;
  }
}

const notFound = (err: unknown): boolean => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404;

export class S3Blobs implements BlobStore {
  readonly kind = 's3';
  private readonly client: S3Client;

  constructor(private readonly o: S3Options) {
    // The SDK warns at every start that its releases after January 2027 need Node 22: the lockfile
    // keeps this one (docs/operations.md), so the warning tells an operator nothing to do.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    this.client = new S3Client({
      region: o.region,
      ...(o.endpoint ? { endpoint: o.endpoint } : {}),
      forcePathStyle: o.forcePathStyle ?? o.endpoint !== undefined,
      ...(o.credentials ? { credentials: o.credentials } : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private key(sha256: string): string {
    if (!isSha256(sha256)) throw new Error(`not a blob name: ${sha256}`);
    return `${this.o.prefix ?? ''}${sha256}`;
  }

  async put(s: Spooled): Promise<void> {
    try {
      if ((await this.size(s.sha256)) !== undefined) return;
      await this.client.send(
        new PutObjectCommand({
          Bucket: this.o.bucket,
          Key: this.key(s.sha256),
          Body: fs.createReadStream(s.path),
          ContentLength: s.size,
          ContentType: 'application/octet-stream',
        }),
      );
    } catch (err) {
      throw storageError(err, `blob ${s.sha256} could not be kept in bucket ${this.o.bucket}`);
    } finally {
      await fs.promises.rm(s.path, { force: true });
    }
  }

  async size(sha256: string): Promise<number | undefined> {
    if (!isSha256(sha256)) return undefined;
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.o.bucket, Key: this.key(sha256) }));
      return r.ContentLength ?? 0;
    } catch (err) {
      if (notFound(err)) return undefined;
      throw storageError(err, `bucket ${this.o.bucket}`);
    }
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable | undefined> {
    if (!isSha256(sha256)) return undefined;
    try {
      const r = await this.client.send(
        new GetObjectCommand({
          Bucket: this.o.bucket,
          Key: this.key(sha256),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      );
      const body = r.Body as Readable;
      if (!range) return body;
      // A server that answers a range with more than it (a test server gives all of \`bytes=0-0\`)
      // says so in Content-Range: the bytes asked for are cut out here.
      const from = Number(/^bytes (\d+)-/.exec(r.ContentRange ?? '')?.[1] ?? range.start);
      if (from === range.start && r.ContentLength === range.end - range.start + 1) return body;
      return Readable.from(slice(body, range.start - from, range.end - range.start + 1));
    } catch (err) {
      if (notFound(err)) return undefined;
      throw storageError(err, `bucket ${this.o.bucket}`);
    }
  }

  async delete(sha256: string): Promise<void> {
    if (!isSha256(sha256)) return;
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.o.bucket, Key: this.key(sha256) }));
    } catch (err) {
      if (!notFound(err)) throw storageError(err, `bucket ${this.o.bucket}`);
    }
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
