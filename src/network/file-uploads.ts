// Uploads as the rest of the server reaches them (#41 part 5): the files feature puts a
// `FileUploads` in the network's extensions (src/files/feature.ts), so /v1/mcp's tools upload in
// process as their caller, through the same path as POST /v1/files (limit, quota, spool, record),
// with no loopback request. Without the files feature `ctx.extensions.files` is absent.

import type { Readable } from 'node:stream';
import type { Principal } from '../auth/principal.js';

/** A stored upload (POST /v1/files's answer). */
export interface UploadedFileAnswer {
  file_id: string;
  sha256: string;
  size: number;
  content_type: string;
  name: string;
}

/** A one-time upload URL (POST /v1/files/upload-urls's answer). */
export interface UploadUrlAnswer {
  upload_url: string;
  method: 'PUT';
  expires_at: string;
  max_bytes: number;
}

export interface FileUploads {
  /** Stores `bytes` as a file uploaded by `principal`; refusals are AppErrors (413, 429, 507). */
  upload(principal: Principal, bytes: Buffer, o: { name: string; contentType?: string | undefined }): Promise<UploadedFileAnswer>;
  /** A URL under `baseUrl` that takes one upload as `principal`. */
  uploadUrl(principal: Principal, baseUrl: string, o: { name: string; contentType?: string | undefined }): UploadUrlAnswer;
  /**
   * A stored file's bytes, for the server's own use (a pairing carrying a relayed message's file):
   * no access check, since the caller already decided the message goes there. Undefined when the
   * file or its blob is gone, or it is larger than `maxBytes`.
   */
  bytes(fileId: string, maxBytes: number): Promise<Buffer | undefined>;
  /**
   * A stored file's hash and size (a pairing relaying it by reference), or undefined when it is not
   * stored or came from a paired network (never passed on). `bytes` answers undefined for the latter too.
   */
  info(fileId: string): Promise<{ sha256: string; size: number } | undefined>;
}

/**
 * Files of paired networks (#41 part 6), as the pairings feature fetches them for the files
 * feature: a relayed message names a file by its id and hash on its home network, and its bytes
 * come over that pairing's credential on the first download. Absent without the pairings feature.
 */
export interface PeerFiles {
  /**
   * The bytes of file `fileId` of paired network `networkId` (`size` of them), as they arrive.
   * Refusals and failures (no such pairing, the peer unreachable, late or refusing) are AppErrors
   * (502 bad_gateway), thrown at once or by the stream.
   */
  open(networkId: string, fileId: string, size: number): Promise<AsyncIterable<Uint8Array> | Readable>;
}
