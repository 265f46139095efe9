// GET (and HEAD) /v1/files/{id} (#41 part 4): the file's bytes to whoever may read it (access.ts),
// with the same route check as message reads; a file the caller may not read is answered as one
// that does not exist. One Range (206, or 416 outside the file), an ETag from the hash with
// If-None-Match (304), and headers that keep an uploaded HTML or SVG from running in svc's origin
// (download-headers.ts). A paired network's file is fetched from it first, once (remote.ts).

import { pipeline } from 'node:stream/promises';
import { AppError } from '../errors.js';
import type { RequestContext, Route } from '../http/router.js';
import type { FileReads } from '../store/files/records.js';
import { readableFile } from './access.js';
import { etagOf, noneMatch, rangeOf, safetyHeaders } from './download-headers.js';
import type { Blobs } from './open-blobs.js';
import type { RemoteFiles } from './remote.js';

export interface DownloadDeps {
  blobs: () => Promise<Blobs>;
  files: () => FileReads;
  /** A paired network's file is fetched on its first download (remote.ts). */
  remote: RemoteFiles;
}

async function download(c: RequestContext, d: DownloadDeps): Promise<void> {
  const id = c.params.file_id!;
  const file = await readableFile(c.ctx, d.files(), c.principal, id);
  const etag = etagOf(file.sha256);
  const headers: Record<string, string> = { ...safetyHeaders(file.content_type, file.name), etag, 'accept-ranges': 'bytes' };
  if (noneMatch(c.req.headers['if-none-match'], etag)) {
    c.res.writeHead(304, { etag, 'cache-control': headers['cache-control']! });
    c.res.end();
    return;
  }
  // A Range with If-Range naming another entity gets the whole file (RFC 9110 13.1.5).
  const ifRange = c.req.headers['if-range'];
  const range = ifRange === undefined || ifRange === etag ? rangeOf(c.req.headers.range, file.size) : undefined;
  if (range === 'unsatisfiable')
    throw new AppError('range_not_satisfiable', `the range is outside file ${id} (${file.size} bytes)`, {
      'content-range': `bytes */${file.size}`,
    });
  const head = c.req.method === 'HEAD';
  if (!head) await d.remote.ensure(file);
  const blobs = await d.blobs();
  const body = head ? undefined : await blobs.store.read(file.sha256, file.size === 0 ? undefined : range);
  // A record whose blob is gone (collected meanwhile) is a file that is not there.
  if (!head && !body) throw new AppError('not_found', `file ${id} not found`);
  if (range) {
    headers['content-range'] = `bytes ${range.start}-${range.end}/${file.size}`;
    headers['content-length'] = String(range.end - range.start + 1);
  } else headers['content-length'] = String(file.size);
  c.res.writeHead(range ? 206 : 200, headers);
  if (!body) {
    c.res.end();
    return;
  }
  try {
    await pipeline(body, c.res);
  } catch {
    // The client went away, or the store failed mid-file: the response is cut (its length says so).
    c.res.destroy();
  }
}

export function downloadRoute(d: DownloadDeps): Route {
  return {
    method: 'GET',
    path: '/v1/files/:file_id',
    action: 'history.read',
    raw: true,
    handler: (c) => download(c, d),
    doc: {
      tag: 'files',
      summary: 'Download a file (GET or HEAD); one byte range with Range.',
      description:
        'Readable by whoever may read a message that references the file, and by the credential that uploaded it; anyone else gets 404, as for an id that does not exist. ' +
        'A file a paired network relayed without its bytes is fetched from it over the pairing on the first download (502 `bad_gateway` when it cannot be), then served from here. ' +
        '`ETag` is the SHA-256 (If-None-Match answers 304). `Content-Disposition` is `attachment` except for PNG, JPEG, GIF and WebP images; every answer carries `X-Content-Type-Options: nosniff` and a sandboxing `Content-Security-Policy`.',
      headers: [
        {
          name: 'Range',
          description:
            'One range, `bytes=first-last`, `bytes=first-` or `bytes=-suffix`: 206 with Content-Range, 416 when it starts past the end.',
        },
        { name: 'If-None-Match', description: 'The ETag of a copy the client holds: 304 when it is this file.' },
      ],
      responses: {
        200: {
          description: "The file's bytes.",
          media: 'application/octet-stream',
          headers: ['ETag', 'Content-Disposition', 'Content-Security-Policy'],
        },
        206: { description: 'The requested range.', media: 'application/octet-stream', headers: ['Content-Range', 'ETag'] },
        304: { description: 'Not modified: the client holds this file.' },
      },
      errors: [416, 502],
    },
  };
}
