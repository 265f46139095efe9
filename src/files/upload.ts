// POST /v1/files (#41 part 1): an upload, as a raw body (its Content-Type, the name in `?name=`)
// or multipart/form-data (multipart.ts). The bytes stream through the edge (a BodyStream: the
// size limit and the stall timeout) into a spool file, hashed as they pass (blobs/spool.ts), then
// into the blob store under their hash: the same bytes make one blob. Nothing half-written is
// kept: a refused, broken or stalled upload leaves no spool file and no record.

import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { AppError, badRequest } from '../errors.js';
import type { BodyStream } from '../http/body-stream.js';
import type { RequestContext, Route } from '../http/router.js';
import { commit, now } from '../network/context.js';
import { newId } from '../protocol/ids.js';
import type { FileRecord } from '../store/files/records.js';
import { BlobError, type Spooled } from './blobs/types.js';
import { spool } from './blobs/spool.js';
import type { Blobs } from './open-blobs.js';
import { uploaderOf } from './access.js';
import { type FileFaults, withFaults } from './faults.js';
import { firstFile, isMultipart } from './multipart.js';
import type { UploadQuota } from './quota.js';

/** The default of server.limits.file_bytes: 25 MiB. */
export const FILE_BYTES = 25 * 1024 * 1024;
/** What a multipart body may carry beyond its file: boundaries, part headers, small fields. */
const MULTIPART_SLACK = 64 * 1024;

/** The answer to an upload. */
export interface UploadAnswer {
  file_id: string;
  sha256: string;
  size: number;
  content_type: string;
  name: string;
}

export interface UploadDeps {
  blobs: () => Promise<Blobs>;
  quota: UploadQuota;
  fileBytes: () => number;
  faults: FileFaults;
}

/** The body limit the edge enforces: the file limit, and the room a multipart envelope needs. */
export const uploadLimit = (fileBytes: () => number) => (req: IncomingMessage) =>
  fileBytes() + (isMultipart(req.headers['content-type']) ? MULTIPART_SLACK : 0);

/** A file's name as kept: its last path segment, without control characters, at most 255 characters. */
export function cleanName(raw: string): string {
  const last = raw.split(/[\\/]/).pop() ?? '';
  return last
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim()
    .slice(0, 255);
}

const TYPE =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(\s*;\s*[A-Za-z0-9!#$&^_.+-]+=("[^"\r\n]*"|[A-Za-z0-9!#$&^_.+-]+))*$/;

/** A Content-Type as kept: a valid media type (with parameters), else `application/octet-stream`. */
export function cleanType(raw: string | undefined, where: string): string {
  const t = (raw ?? '').trim();
  if (t === '') return 'application/octet-stream';
  if (t.length > 255 || !TYPE.test(t)) throw badRequest(`${where}: must be a media type such as text/plain or image/png`);
  return t;
}

/** What a failed spool or blob write answers: the edge's refusal, 413, 507 or 503. */
function refusalOf(err: unknown, body: BodyStream, limit: number): unknown {
  if (body.failure) return body.failure;
  if (err instanceof AppError) return err;
  if (err instanceof BlobError) {
    if (err.code === 'too_large')
      return new AppError('payload_too_large', `the file is larger than ${limit} bytes (server.limits.file_bytes)`);
    if (err.code === 'storage_full')
      return new AppError('insufficient_storage', 'the server has no room for this file; nothing of it was kept');
    return new AppError('service_unavailable', 'the file store cannot take files right now; nothing was kept; retry later', {
      'retry-after': '5',
    });
  }
  return err;
}

async function upload(c: RequestContext, d: UploadDeps): Promise<{ status: number; body: UploadAnswer }> {
  const body = c.body as BodyStream;
  const limit = d.fileBytes();
  const uploader = uploaderOf(c.principal);
  try {
    const declared = Number(c.req.headers['content-length']);
    d.quota.admit(uploader, Number.isFinite(declared) ? declared : undefined);
    const query = c.url.searchParams.get('name');
    let name = query === null ? undefined : cleanName(query);
    let contentType: string;
    let source: NodeJS.ReadableStream = body;
    if (isMultipart(c.req.headers['content-type'])) {
      const f = await firstFile(body, c.req.headers, limit);
      source = f.stream;
      name ??= cleanName(f.filename);
      contentType = cleanType(f.contentType, "body: the file part's Content-Type");
    } else {
      if (query === null) throw badRequest('query.name: required for a raw upload (POST /v1/files?name=report.pdf)');
      contentType = cleanType(c.req.headers['content-type'], 'header content-type');
    }
    if (!name) throw badRequest('query.name: must name the file (not empty, no path)');
    const blobs = await d.blobs();
    let spooled: Spooled;
    try {
      spooled = await spool(withFaults(source, d.faults), blobs.spoolDir, limit);
    } catch (err) {
      throw refusalOf(err, body, limit);
    }
    try {
      d.quota.count(uploader, spooled.size);
    } catch (err) {
      await rm(spooled.path, { force: true });
      throw err;
    }
    const file: FileRecord = {
      id: newId('file'),
      sha256: spooled.sha256,
      size: spooled.size,
      content_type: contentType,
      name,
      created_at: now(),
      uploaded_by: uploader ?? 'anonymous',
    };
    // The record first, then the blob, both under the blob's lock: a collection counting the
    // blob's users meanwhile waits, then sees this file, and leaves the blob (blob-lock.ts). A blob
    // that cannot be kept takes its record with it; a record that cannot be stored, the spool file.
    await blobs.locks.with(file.sha256, async () => {
      try {
        await commit(c.ctx, [{ op: 'file.add', file }]);
      } catch (err) {
        await rm(spooled.path, { force: true });
        throw err;
      }
      try {
        await blobs.store.put(spooled);
      } catch (err) {
        await commit(c.ctx, [{ op: 'file.remove', id: file.id }]).catch(() => {});
        throw refusalOf(err, body, limit);
      }
    });
    return {
      status: 201,
      body: { file_id: file.id, sha256: file.sha256, size: file.size, content_type: file.content_type, name: file.name },
    };
  } finally {
    // Whatever was not read (a refused upload) is the server's to drain; the edge's timer stops.
    if (!body.readableEnded) body.destroy();
  }
}

export function uploadRoute(d: UploadDeps): Route {
  return {
    method: 'POST',
    path: '/v1/files',
    action: 'message.send',
    body: { kind: 'stream', limit: uploadLimit(d.fileBytes) },
    handler: (c) => upload(c, d),
    doc: {
      tag: 'files',
      summary: 'Upload a file: a raw body with its Content-Type and `?name=`, or multipart/form-data with one file part.',
      description:
        'Streams the body to storage, hashing it as it arrives; the same bytes are kept once. Answers 201 `{file_id, sha256, size, content_type, name}`. ' +
        'Send the file in a message as a part `{"kind": "file", "file_id": ...}`. An upload no message references is removed after `server.files.unreferenced_ttl` (default 1h). ' +
        '413 over `server.limits.file_bytes` (from Content-Length at once, else as soon as passed), 408 when the body stalls for `server.limits.body_seconds`, 507 when the disk is full (nothing is kept), 429 over the per-credential upload limits.',
      query: [{ name: 'name', description: "The file's name (a raw upload needs it; a multipart upload's own filename otherwise)." }],
      request: {
        'application/octet-stream': {
          type: 'string',
          format: 'binary',
          description: "The raw bytes (any Content-Type: it is kept as the file's).",
        },
        'multipart/form-data': { type: 'object', properties: { file: { type: 'string', format: 'binary' } } },
      },
      responses: { 201: { description: 'The stored file.', json: 'FileUpload' } },
      errors: [400, 408, 413, 429, 507],
    },
  };
}
