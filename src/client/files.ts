// Files through the typed client (#41 part 5): uploads streamed to POST /v1/files and downloads
// streamed from GET /v1/files/{id}, with resume by Range. Neither holds a file in memory: the
// bytes go from a Readable to the socket and from the socket to a Writable, with a progress
// callback between. On node:http like every client call (http-call.ts: start-up time, no port the
// Fetch standard refuses).

import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { Transform, type Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CallTimeout, exchange, openStream } from './http-call.js';
import { ClientError, responseError, transportError, type CallContext } from './errors.js';
import { contentTypeOf } from './content-type.js';

/** What POST /v1/files answers: the stored file. */
export interface UploadedFile {
  file_id: string;
  sha256: string;
  size: number;
  content_type: string;
  name: string;
}

/** A message part that references an uploaded file (SPEC Part, kind `file`). */
export interface FilePartBody {
  kind: 'file';
  file_id: string;
  name: string;
  content_type: string;
  size: number;
}

/** The message part of an uploaded file. */
export const filePart = (f: UploadedFile): FilePartBody => ({
  kind: 'file',
  file_id: f.file_id,
  name: f.name,
  content_type: f.content_type,
  size: f.size,
});

/** Bytes so far, and the whole size when it is known. */
export type Progress = (done: number, total: number | undefined) => void;

export interface UploadOptions {
  /** The file's name as others see it (`?name=`). */
  name: string;
  /** Default: guessed from the name's extension (content-type.ts). */
  contentType?: string;
  /** The byte count when known: sent as Content-Length, so an oversized file is refused at once. */
  size?: number;
  onProgress?: Progress;
  /** The longest stretch without progress either way (ms). */
  timeoutMs?: number;
}

export interface DownloadOptions {
  /** Resume at this byte (a Range request); the answer says whether the server honoured it. */
  start?: number;
  /** With `start`: the ETag the earlier bytes came with, so a changed file is sent whole (If-Range). */
  ifRange?: string;
  onProgress?: Progress;
  timeoutMs?: number;
}

/** A download's headers, with its body still unread. */
export interface OpenedDownload {
  /** The file's name from Content-Disposition; undefined when the server gave none. */
  name: string | undefined;
  contentType: string;
  /** The whole file's size, when the server said it. */
  size: number | undefined;
  /** Where the body starts in the file: `start` when the range was honoured, else 0 (the whole file). */
  start: number;
  etag: string | undefined;
  body: Readable;
}

interface Connection {
  baseUrl: string;
  token: string | undefined;
  start: string | undefined;
  timeoutMs: number;
}

/** Streamed file transfers of one client (`client.files`). */
export class FileTransfers {
  constructor(private readonly conn: Connection) {}

  /** POST /v1/files with the stream's bytes; resolves with the stored file once the server has it. */
  upload(body: Readable, o: UploadOptions): Promise<UploadedFile> {
    const conn = this.conn;
    const reqPath = `/v1/files?name=${encodeURIComponent(o.name)}`;
    const ctx = this.#ctx('POST', reqPath);
    const timeoutMs = o.timeoutMs ?? Math.max(conn.timeoutMs, 60_000);
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': o.contentType ?? contentTypeOf(o.name),
      ...(o.size !== undefined ? { 'content-length': String(o.size) } : {}),
      ...this.#auth(),
    };
    return new Promise<UploadedFile>((resolve, reject) => {
      const target = new URL(conn.baseUrl + reqPath);
      const send = target.protocol === 'https:' ? https.request : http.request;
      let answered = false;
      const req = send(target, { method: 'POST', headers }, (res) => {
        // The server may answer before the body is all sent (413 on a passed limit): its answer
        // is the outcome, and what is left of the source is not read.
        answered = true;
        body.unpipe();
        body.destroy();
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => reject(transportError(err, ctx)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          const rid = typeof res.headers['x-request-id'] === 'string' ? res.headers['x-request-id'] : undefined;
          if (status < 200 || status > 299) return reject(responseError(status, text, ctx, rid));
          try {
            resolve(JSON.parse(text) as UploadedFile);
          } catch {
            reject(new ClientError(`POST ${reqPath}: the answer is not JSON`, status, 'bad_response', rid));
          }
        });
      });
      req.setTimeout(timeoutMs, () => req.destroy(new CallTimeout(timeoutMs)));
      req.on('error', (err) => {
        body.destroy();
        // A reset after the answer came is the server closing a refused upload: the answer stands.
        if (!answered) reject(transportError(err, ctx));
      });
      body.on('error', (err) => {
        req.destroy();
        if (!answered)
          reject(new ClientError(`reading ${o.name} failed: ${err.message}`, undefined, 'source_error', undefined, { cause: err }));
      });
      body.pipe(counting(o.size, o.onProgress)).pipe(req);
    });
  }

  /**
   * POST /v1/files/upload-urls: a URL that takes one upload (PUT) without other credentials, for
   * a runtime that holds the bytes but not the token (the MCP tools' large files).
   */
  async uploadUrl(o: { name: string; contentType?: string | undefined }): Promise<{
    upload_url: string;
    method: 'PUT';
    expires_at: string;
    max_bytes: number;
  }> {
    const reqPath = '/v1/files/upload-urls';
    const ctx = this.#ctx('POST', reqPath);
    const body = JSON.stringify({ name: o.name, ...(o.contentType !== undefined ? { content_type: o.contentType } : {}) });
    let r;
    try {
      r = await exchange(this.conn.baseUrl + reqPath, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/json', ...this.#auth() },
        body,
        timeoutMs: this.conn.timeoutMs,
      });
    } catch (err) {
      throw transportError(err, ctx);
    }
    if (r.status < 200 || r.status > 299) throw responseError(r.status, r.text, ctx, r.requestId);
    return JSON.parse(r.text) as Awaited<ReturnType<FileTransfers['uploadUrl']>>;
  }

  /** Uploads the file at `file` (its base name unless `name` is given). */
  async uploadFile(file: string, o: Partial<UploadOptions> = {}): Promise<UploadedFile> {
    const st = await fs.promises.stat(file);
    if (!st.isFile()) throw new ClientError(`${file}: not a regular file`, undefined, 'source_error');
    const name = o.name ?? path.basename(file);
    return this.upload(fs.createReadStream(file), { ...o, name, size: st.size });
  }

  /** GET /v1/files/{id}: resolves once the headers are in; the body is the caller's to read. */
  async open(id: string, o: DownloadOptions = {}): Promise<OpenedDownload> {
    const reqPath = `/v1/files/${encodeURIComponent(id)}`;
    const ctx = this.#ctx('GET', reqPath);
    const headers: Record<string, string> = { ...this.#auth() };
    const from = o.start ?? 0;
    if (from > 0) {
      headers.range = `bytes=${from}-`;
      if (o.ifRange !== undefined) headers['if-range'] = o.ifRange;
    }
    let r;
    try {
      r = await openStream(this.conn.baseUrl + reqPath, { headers, timeoutMs: o.timeoutMs ?? Math.max(this.conn.timeoutMs, 60_000) });
    } catch (err) {
      throw transportError(err, ctx);
    }
    const h = r.body.headers;
    const etag = typeof h.etag === 'string' ? h.etag : undefined;
    const name = fileNameOf(h['content-disposition']);
    const contentType = h['content-type'] ?? 'application/octet-stream';
    if (r.status === 416 && from > 0) {
      // Asked from the end of the file: nothing left to fetch.
      r.body.resume();
      const total = /\/(\d+)$/.exec(String(h['content-range'] ?? ''))?.[1];
      if (total !== undefined && Number(total) === from) {
        return { name, contentType, size: from, start: from, etag, body: emptyBody() };
      }
    }
    if (r.status !== 200 && r.status !== 206) {
      const chunks: Buffer[] = [];
      for await (const c of r.body) chunks.push(c as Buffer);
      throw responseError(r.status, Buffer.concat(chunks).toString('utf8'), ctx, r.requestId);
    }
    if (r.status === 206) {
      const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(String(h['content-range'] ?? ''));
      if (!m || Number(m[1]) !== from) {
        r.body.destroy();
        throw new ClientError(`GET ${reqPath}: a partial answer that does not start at byte ${from}`, 206, 'bad_response');
      }
      return { name, contentType, size: m[3] === '*' ? undefined : Number(m[3]), start: from, etag, body: r.body };
    }
    const length = h['content-length'] !== undefined ? Number(h['content-length']) : undefined;
    return { name, contentType, size: length, start: 0, etag, body: r.body };
  }

  /**
   * Downloads into `out` (ended when done unless `end: false`, as for stdout). Resolves with the
   * opened download's details once every byte is written.
   */
  async download(id: string, out: Writable, o: DownloadOptions & { end?: boolean } = {}): Promise<Omit<OpenedDownload, 'body'>> {
    const d = await this.open(id, o);
    const { body, ...info } = d;
    const count = counting(info.size, o.onProgress, info.start);
    await pipeline(body, count, out, { end: o.end ?? true });
    return info;
  }

  #auth(): Record<string, string> {
    return this.conn.token !== undefined ? { authorization: `Bearer ${this.conn.token}` } : {};
  }

  #ctx(method: string, p: string): CallContext {
    return {
      method,
      path: p,
      baseUrl: this.conn.baseUrl,
      hasToken: this.conn.token !== undefined,
      ...(this.conn.start ? { start: this.conn.start } : {}),
    };
  }
}

/** A pass-through that reports the bytes gone by (from `already`). */
function counting(total: number | undefined, onProgress: Progress | undefined, already = 0): Transform {
  let done = already;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      done += chunk.length;
      onProgress?.(done, total);
      cb(null, chunk);
    },
  });
}

function emptyBody(): Readable {
  return new Transform({
    transform(_c, _e, cb) {
      cb();
    },
  }).end();
}

/**
 * The file name a Content-Disposition header gives (RFC 6266: `filename*` in UTF-8 first, then
 * `filename`), undefined when none. Not yet safe as a path: see safeFileName.
 */
export function fileNameOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header)?.[1];
  if (star !== undefined) {
    try {
      return decodeURIComponent(star.trim());
    } catch {
      // a broken encoding: fall back to the plain parameter
    }
  }
  const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(header)?.[1];
  if (quoted !== undefined) return quoted.replace(/\\(.)/g, '$1');
  return /filename\s*=\s*([^;\s]+)/.exec(header)?.[1];
}

/**
 * A file name as a local file may be called: its last path segment, without control characters,
 * never `.`, `..` or empty (then `fallback`). A sender chooses the name, so it must never reach
 * outside the folder it is saved into.
 */
export function safeFileName(name: string | undefined, fallback: string): string {
  const cleaned = (name ?? '')
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .split(/[/\\]/)
    .pop()!
    .trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return fallback;
  return cleaned.slice(0, 255);
}
