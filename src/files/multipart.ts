// A multipart/form-data upload (#41 part 1), parsed by @fastify/busboy: the first file part is the
// upload (its filename and type with it); text fields are ignored, a second file is refused. The
// file's bytes stream on as they are parsed: nothing is held whole.

import { Busboy, type BusboyInstance } from '@fastify/busboy';
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { badRequest } from '../errors.js';

/** The upload a multipart body carries. */
export interface MultipartFile {
  stream: Readable;
  filename: string;
  contentType: string;
}

export const isMultipart = (contentType: string | undefined): boolean => /^multipart\/form-data\b/i.test(contentType ?? '');

/**
 * Parses `body` until its first file part, and gives that part's stream (which reads on through
 * the body as it is consumed). 400 for a body that is no valid form or has no file part.
 * `fileBytes` caps the part one byte past the limit, so the spool sees it is too large.
 */
export function firstFile(body: Readable, headers: IncomingHttpHeaders, fileBytes: number): Promise<MultipartFile> {
  return new Promise((resolve, reject) => {
    let parser: BusboyInstance;
    try {
      parser = Busboy({
        headers: headers as IncomingHttpHeaders & { 'content-type': string },
        limits: { files: 1, fields: 16, fieldSize: 64 * 1024, parts: 17, fileSize: fileBytes + 1, headerPairs: 16 },
      });
    } catch (err) {
      reject(badRequest(`body: not a multipart/form-data body (${(err as Error).message})`));
      return;
    }
    let found = false;
    parser.on('file', (_field, stream, filename, _encoding, mimeType) => {
      if (found) {
        stream.resume();
        return;
      }
      found = true;
      // A body refused by the edge (too large, stalled) or broken fails the file's stream too.
      body.once('error', (err) => stream.destroy(err));
      resolve({ stream, filename, contentType: mimeType });
    });
    parser.on('filesLimit', () => parser.destroy(badRequest('body: a multipart upload holds one file')));
    parser.on('error', (err: unknown) => {
      if (!found)
        reject(
          err instanceof Error && 'status' in err
            ? err
            : badRequest(`body: not a valid multipart/form-data body (${(err as Error).message})`),
        );
    });
    parser.on('finish', () => {
      if (!found) reject(badRequest('body: a multipart upload needs one file part'));
    });
    body.once('error', (err) => {
      if (!found) reject(err);
      parser.destroy();
    });
    body.pipe(parser);
  });
}
