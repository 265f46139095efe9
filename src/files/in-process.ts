// An upload made in process (/v1/mcp's send_file, #41 part 5): the bytes go through the upload
// route's own handler, as the caller, so the file limit, the quota, the spool and the record are
// exactly those of POST /v1/files. The request it answers is made up here: a readable of the bytes
// with the headers a raw upload carries, behind the same BodyStream the edge puts a body in.

import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Principal } from '../auth/principal.js';
import { BodyStream } from '../http/body-stream.js';
import type { RequestContext, Route } from '../http/router.js';
import type { NetworkContext } from '../network/context.js';
import type { FileUploads, UploadedFileAnswer } from '../network/file-uploads.js';
import { newId } from '../protocol/ids.js';

/** The idle bound of an in-process body: its bytes are all there, so it never waits. */
const IDLE_SECONDS = 30;

/** Uploads `bytes` through `upload` (the POST /v1/files route) as `principal`. */
export function inProcessUpload(ctx: NetworkContext, upload: Route, fileBytes: () => number): FileUploads['upload'] {
  return async (principal: Principal, bytes: Buffer, o) => {
    const req = Object.assign(Readable.from([bytes]), {
      headers: { 'content-type': o.contentType ?? 'application/octet-stream', 'content-length': String(bytes.length) },
      complete: true,
      method: 'POST',
    }) as unknown as IncomingMessage;
    const c: RequestContext = {
      req,
      res: undefined as unknown as RequestContext['res'],
      url: new URL(`http://in-process/v1/files?name=${encodeURIComponent(o.name)}`),
      params: {},
      principal,
      body: new BodyStream(req, fileBytes(), IDLE_SECONDS),
      bodyBytes: undefined,
      requestId: newId('req'),
      ctx,
    };
    const reply = await upload.handler(c);
    return (reply as { body: UploadedFileAnswer }).body;
  };
}
