// The `file` part in sends and edits (#41 part 2): a part naming an uploaded file (`file_id`) is
// stored with the file's name, content type and size as they were uploaded (whatever the request
// said), and the message's batch notes the reference (`file.ref`), so the file is readable by
// whoever may read the message from the moment it is stored. A file that is not stored, or that
// the sender may not read, refuses the send with 404 naming the part, as a missing file would.
//
// A message a paired network relays may name a file of its own by `origin_file` (its id and hash
// there, #41 part 6): the part is stored as a reference here (remote.ts fetches the bytes on the
// first download), readable by this message's readers exactly as an upload would be.
//
// An edit keeps the files its message already holds: whoever may change the message may keep what
// it names. The edit of a relayed copy (its home network relays it) names them by their ids on the
// home network: a reference by the id it was made from, a carried copy by its name, type and size.

import { createHash } from 'node:crypto';
import type { OutgoingMessage, NetworkContext, SendBatch } from '../network/context.js';
import { badRequest, notFound } from '../errors.js';
import type { Part } from '../protocol/types.js';
import type { FileReads, FileRecord } from '../store/files/records.js';
import type { WriteOp } from '../store/types.js';
import { mayRead } from './access.js';
import { now } from '../network/context.js';
import { cleanName, cleanType, FILE_BYTES } from './upload.js';

/** The parts and references of a message's `file` parts that name uploads; nothing when it has none. */
export async function fileBatch(ctx: NetworkContext, files: FileReads, m: OutgoingMessage): Promise<SendBatch | undefined> {
  if (!m.parts.some((x) => x.kind === 'file' && (x.file_id !== undefined || x.origin_file !== undefined))) return undefined;
  const ops: WriteOp[] = [];
  const seen = new Set<string>();
  const parts: Part[] = [];
  const held = await heldFiles(ctx, files, m.id);
  const ref = (id: string) => {
    if (!seen.has(id)) ops.push({ op: 'file.ref', ref: { file_id: id, message_id: m.id, conv: m.conv } });
    seen.add(id);
  };
  for (const [i, part] of m.parts.entries()) {
    if (part.kind === 'file' && part.origin_file !== undefined) {
      const remote = await remoteFile(ctx, files, m, part, i);
      if (!remote) {
        const { origin_file: _, file_id: __, ...meta } = part;
        parts.push(meta);
        continue;
      }
      if (remote.add) ops.push({ op: 'file.add', file: remote.file });
      parts.push(partOf(remote.file));
      ref(remote.file.id);
      continue;
    }
    if (part.kind !== 'file' || part.file_id === undefined) {
      parts.push(part);
      continue;
    }
    const kept = held.find(part);
    if (kept) {
      parts.push(kept);
      ref(kept.file_id!);
      continue;
    }
    if (held.relayed) {
      // A file the home network added by this edit: its id means nothing here, its metadata travels.
      const { file_id: _, ...meta } = part;
      parts.push(meta);
      continue;
    }
    const id = part.file_id;
    const file = await files.get(id);
    if (!file || !(await mayRead(ctx, files, m.principal, file))) throw notFound(`body.parts[${i}].file_id: file ${id}`);
    parts.push(partOf(file));
    ref(id);
  }
  return { parts, ops };
}

/** The files the stored message `id` (an edit's) holds: `find` gives the one a part of the edit names; `relayed` if it is a relayed copy. */
async function heldFiles(
  ctx: NetworkContext,
  files: FileReads,
  id: string,
): Promise<{ find: (part: Part) => Part | undefined; relayed: boolean }> {
  const rec = await ctx.store.getMessage(id);
  if (!rec) return { find: () => undefined, relayed: false };
  const referenced = new Set((await files.refsOfMessages([id])).map((r) => r.file_id));
  const byId = new Map<string, Part>();
  const carried: Part[] = [];
  for (const p of rec.message.parts) {
    if (p.kind !== 'file' || p.file_id === undefined || !referenced.has(p.file_id)) continue;
    byId.set(p.file_id, p);
    if (rec.message.origin === undefined) continue;
    const remote = (await files.get(p.file_id))?.remote;
    if (remote) byId.set(remote.file_id, p);
    else carried.push(p);
  }
  const find = (part: Part) =>
    byId.get(part.file_id!) ?? carried.find((p) => p.name === part.name && p.content_type === part.content_type && p.size === part.size);
  return { find, relayed: rec.message.origin !== undefined };
}

const partOf = (file: FileRecord): Part => ({
  kind: 'file',
  file_id: file.id,
  name: file.name,
  content_type: file.content_type,
  size: file.size,
});

/** The id a paired network's file has here: the same for every message naming it, so one blob and record serve them all. */
export function remoteFileId(networkId: string, fileId: string): string {
  return `file_r${createHash('sha256').update(`${networkId}\n${fileId}`).digest('hex').slice(0, 40)}`;
}

/**
 * The reference a relayed part names (made now, `add`, or stored by an earlier message), or
 * nothing when the file travels as its metadata only: a file over this server's own file limit
 * (server.limits.file_bytes) is never fetched.
 */
async function remoteFile(
  ctx: NetworkContext,
  files: FileReads,
  m: OutgoingMessage,
  part: Part,
  i: number,
): Promise<{ file: FileRecord; add: boolean } | undefined> {
  const o = part.origin_file!;
  const home = m.origin?.network_id;
  // Only a paired network's relay names a file by its home: a local sender has file_id.
  if (home === undefined || home === ctx.config.network.id)
    throw badRequest(`body.parts[${i}].origin_file: only on a message relayed from a paired network (with origin)`);
  if (part.size === undefined) throw badRequest(`body.parts[${i}].size: required with origin_file`);
  if (part.size > (ctx.config.server.limits.file_bytes ?? FILE_BYTES)) return undefined;
  const id = remoteFileId(home, o.file_id);
  const stored = await files.get(id);
  if (stored) return { file: stored, add: false };
  let contentType: string;
  try {
    contentType = cleanType(part.content_type, `body.parts[${i}].content_type`);
  } catch {
    contentType = 'application/octet-stream';
  }
  // Bytes of that hash kept here already are not the peer's to name: it must send them once (remote.ts).
  const prove = (await files.blobUsers(o.sha256)) > 0;
  const file: FileRecord = {
    id,
    sha256: o.sha256,
    size: part.size,
    content_type: contentType,
    name: cleanName(part.name ?? '') || o.file_id,
    created_at: now(),
    // No credential is named so: the network's own readers read it through its messages.
    uploaded_by: `pairing:${home}`,
    remote: { network_id: home, file_id: o.file_id, ...(prove ? { prove: true as const } : {}) },
  };
  return { file, add: true };
}
