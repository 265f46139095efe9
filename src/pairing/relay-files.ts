// The files of a relayed message (#41 part 6). A file of at most `server.files.pairing_carry_bytes`
// (default 1 MiB) is carried with the message over a direct pairing: uploaded to the peer (POST
// /v1/files, with the pairing's token) just before the message, whose part then names the peer's
// copy. A larger file, every file over a relay pairing (its frames carry JSON), and one the peer
// would not take, travel by reference: the part names the file's id and hash here (`origin_file`),
// and the peer fetches the bytes over the pairing on its first download (peer-files.ts).

import type { NetworkContext } from '../network/context.js';
import type { Message } from '../protocol/types.js';
import { classifyRelayAnswer, type RelayedFile } from './relay-message.js';
import type { PairTransport } from './transport.js';

/** The default of server.files.pairing_carry_bytes: 1 MiB. */
export const PAIRING_CARRY_BYTES = 1024 * 1024;

/** The largest file a relayed message carries, from the config (0: none, every file by reference). */
export const carryBytes = (ctx: NetworkContext): number => ctx.config.server.files?.pairing_carry_bytes ?? PAIRING_CARRY_BYTES;

/**
 * How each file of `m` goes to the peer (local file id -> carried copy or reference), uploading
 * the small ones; 'retry' when the peer could not take them now (the message waits with them). A
 * file no longer stored travels as its metadata only (absent from the map). Transport failures throw.
 */
export async function carryFiles(
  ctx: NetworkContext,
  transport: PairTransport,
  m: Message,
): Promise<ReadonlyMap<string, RelayedFile> | 'retry'> {
  const out = new Map<string, RelayedFile>();
  const files = ctx.extensions.files;
  if (!files) return out;
  const limit = transport.upload ? carryBytes(ctx) : 0;
  for (const p of m.parts) {
    if (p.kind !== 'file' || p.file_id === undefined || out.has(p.file_id)) continue;
    const info = await files.info(p.file_id);
    if (!info) continue;
    const bytes = info.size <= limit ? await files.bytes(p.file_id, limit) : undefined;
    if (bytes && transport.upload) {
      const r = await transport.upload(
        `/v1/files?name=${encodeURIComponent(p.name ?? p.file_id)}`,
        bytes,
        p.content_type ?? 'application/octet-stream',
      );
      const verdict = classifyRelayAnswer(r.status);
      if (verdict === 'retry') return 'retry';
      const id = (r.body as { file_id?: unknown } | undefined)?.file_id;
      if (verdict === 'delivered' && typeof id === 'string') {
        out.set(p.file_id, { file_id: id });
        continue;
      }
    }
    // Refused for good (over the peer's own limit) or too large to carry: by reference.
    out.set(p.file_id, { origin_file: { file_id: p.file_id, sha256: info.sha256 } });
  }
  return out;
}
