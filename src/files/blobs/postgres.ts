// Blobs in PostgreSQL (`store.files.backend: database`, the default on Postgres): every instance
// serves every file from the database it already has. A blob is its chunks (1 MiB each, bytea)
// and a row in file_blobs written in the same transaction after the last chunk: a read finds a
// blob only whole, and a crash mid-write leaves nothing (the transaction never committed). Two
// instances writing the same content meet on the chunks' primary key; the second writes nothing.

import fs from 'node:fs';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { quoteIdent } from '../../store/postgres/schema.js';
import { storageError } from './spool.js';
import { BlobError, isSha256, type BlobStore, type ByteRange, type Spooled } from './types.js';

/** Bytes per chunk row: big enough that a 25 MiB file is 25 rows, small enough to stream a range. */
export const CHUNK_BYTES = 1024 * 1024;

export class PostgresBlobs implements BlobStore {
  readonly kind = 'database';
  private readonly blobs: string;
  private readonly chunks: string;

  constructor(
    private readonly pool: pg.Pool,
    schema: string,
  ) {
    this.blobs = `${quoteIdent(schema)}.file_blobs`;
    this.chunks = `${quoteIdent(schema)}.file_chunks`;
  }

  /** The tables (idempotent; run at open, by every instance). */
  async migrate(): Promise<void> {
    await this.pool.query(
      `CREATE TABLE IF NOT EXISTS ${this.blobs} (sha256 text PRIMARY KEY, size bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
       CREATE TABLE IF NOT EXISTS ${this.chunks} (sha256 text NOT NULL, n integer NOT NULL, data bytea NOT NULL, PRIMARY KEY (sha256, n));`,
    );
  }

  async put(s: Spooled): Promise<void> {
    try {
      if ((await this.size(s.sha256)) !== undefined) return;
      const c = await this.pool.connect();
      try {
        await c.query('BEGIN');
        const fh = await fs.promises.open(s.path, 'r');
        try {
          const buf = Buffer.alloc(CHUNK_BYTES);
          for (let n = 0; n * CHUNK_BYTES < s.size || n === 0; n++) {
            const { bytesRead } = await fh.read(buf, 0, CHUNK_BYTES, n * CHUNK_BYTES);
            await c.query(`INSERT INTO ${this.chunks} (sha256, n, data) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, [
              s.sha256,
              n,
              buf.subarray(0, bytesRead),
            ]);
          }
        } finally {
          await fh.close();
        }
        await c.query(`INSERT INTO ${this.blobs} (sha256, size) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [s.sha256, s.size]);
        await c.query('COMMIT');
      } catch (err) {
        await c.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        c.release();
      }
    } catch (err) {
      throw storageError(err, `blob ${s.sha256} could not be kept`);
    } finally {
      await fs.promises.rm(s.path, { force: true });
    }
  }

  async size(sha256: string): Promise<number | undefined> {
    if (!isSha256(sha256)) return undefined;
    const r = await this.query(`SELECT size FROM ${this.blobs} WHERE sha256 = $1`, [sha256]);
    return r.rows[0] ? Number(r.rows[0].size) : undefined;
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable | undefined> {
    const size = await this.size(sha256);
    if (size === undefined) return undefined;
    const { start, end } = range ?? { start: 0, end: size - 1 };
    const chunk = (n: number) => this.query(`SELECT data FROM ${this.chunks} WHERE sha256 = $1 AND n = $2`, [sha256, n]);
    // A chunk at a time, read as the consumer asks: a large range never sits in memory whole.
    async function* bytes(): AsyncGenerator<Buffer> {
      for (let n = Math.floor(start / CHUNK_BYTES); n * CHUNK_BYTES <= end; n++) {
        const data = (await chunk(n)).rows[0]?.data as Buffer | undefined;
        if (!data) throw new BlobError('unavailable', `blob ${sha256} lost its chunk ${n}`);
        const from = Math.max(0, start - n * CHUNK_BYTES);
        const to = Math.min(data.length, end - n * CHUNK_BYTES + 1);
        yield data.subarray(from, to);
      }
    }
    return Readable.from(size === 0 ? [] : bytes());
  }

  async delete(sha256: string): Promise<void> {
    // The row first: a read never finds a blob whose chunks are going.
    await this.query(`WITH b AS (DELETE FROM ${this.blobs} WHERE sha256 = $1) DELETE FROM ${this.chunks} WHERE sha256 = $1`, [sha256]);
  }

  async close(): Promise<void> {}

  private async query(text: string, values: unknown[]): Promise<pg.QueryResult> {
    try {
      return await this.pool.query(text, values);
    } catch (err) {
      throw storageError(err, 'the file store is unavailable');
    }
  }
}
