// The files of a relayed message (#41 part 6). A file of at most PAIRING_CARRY_BYTES is carried
// with the message: uploaded to the peer (POST /v1/files, with the pairing's token) just before the
// message, whose part then names the peer's copy. A larger file, or one a relay-transport pairing
// cannot carry (its frames are JSON), reaches the peer as its metadata only (name, type, size,
// without a file_id): the peer's readers see that the file exists, not its bytes (docs/pairing.md).

import type { FileUploads } from '../network/file-uploads.js';
import type { Message } from '../protocol/types.js';
import { classifyRelayAnswer } from './relay-message.js';
import type { PairTransport } from './transport.js';

/** The largest file a relayed message carries: 1 MiB. */
export const PAIRING_CARRY_BYTES = 1024 * 1024;

/**
 * Uploads the message's small files to the peer; answers local file id -> the peer's, or 'retry'
 * when the peer could not take them now (the message waits with them). A file the peer refuses for
 * good (over its own limit) is left to travel as metadata. Transport failures throw.
 */
export async function carryFiles(
  transport: PairTransport,
  files: FileUploads | undefined,
  m: Message,
): Promise<ReadonlyMap<string, string> | 'retry'> {
  const carried = new Map<string, string>();
  if (!files || !transport.upload) return carried;
  for (const p of m.parts) {
    if (p.kind !== 'file' || p.file_id === undefined || carried.has(p.file_id) || (p.size ?? 0) > PAIRING_CARRY_BYTES) continue;
    const bytes = await files.bytes(p.file_id, PAIRING_CARRY_BYTES);
    if (!bytes) continue;
    const r = await transport.upload(
      `/v1/files?name=${encodeURIComponent(p.name ?? p.file_id)}`,
      bytes,
      p.content_type ?? 'application/octet-stream',
    );
    const verdict = classifyRelayAnswer(r.status);
    if (verdict === 'retry') return 'retry';
    const id = (r.body as { file_id?: unknown } | undefined)?.file_id;
    if (verdict === 'delivered' && typeof id === 'string') carried.set(p.file_id, id);
  }
  return carried;
}
