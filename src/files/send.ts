// The `file` part in sends and edits (#41 part 2): a part naming an uploaded file (`file_id`) is
// stored with the file's name, content type and size as they were uploaded (whatever the request
// said), and the message's batch notes the reference (`file.ref`), so the file is readable by
// whoever may read the message from the moment it is stored. A file that is not stored, or that
// the sender may not read, refuses the send with 404 naming the part, as a missing file would.

import type { OutgoingMessage, NetworkContext, SendBatch } from '../network/context.js';
import { notFound } from '../errors.js';
import type { Part } from '../protocol/types.js';
import type { FileReads } from '../store/files/records.js';
import type { WriteOp } from '../store/types.js';
import { mayRead } from './access.js';

/** The parts and references of a message's `file` parts that name uploads; nothing when it has none. */
export async function fileBatch(ctx: NetworkContext, files: FileReads, m: OutgoingMessage): Promise<SendBatch | undefined> {
  if (!m.parts.some((x) => x.kind === 'file' && x.file_id !== undefined)) return undefined;
  const ops: WriteOp[] = [];
  const seen = new Set<string>();
  const parts: Part[] = [];
  for (const [i, part] of m.parts.entries()) {
    if (part.kind !== 'file' || part.file_id === undefined) {
      parts.push(part);
      continue;
    }
    const id = part.file_id;
    const file = await files.get(id);
    if (!file || !(await mayRead(ctx, files, m.principal, file))) throw notFound(`body.parts[${i}].file_id: file ${id}`);
    parts.push({ kind: 'file', file_id: file.id, name: file.name, content_type: file.content_type, size: file.size });
    if (!seen.has(id)) ops.push({ op: 'file.ref', ref: { file_id: id, message_id: m.id, conv: m.conv } });
    seen.add(id);
  }
  return { parts, ops };
}
