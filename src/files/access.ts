// Who may read a file (#41 part 2): exactly those who may read a message that references it (by
// the same visibility rule as the message reads: auth/visibility.ts), and the credential that
// uploaded it while the upload exists. Everyone else gets the answer an id that does not exist
// gets, so a file's existence is never told to someone who may not read it.

import type { Principal } from '../auth/principal.js';
import { canSeeMessage, viewerOf } from '../auth/visibility.js';
import { notFound, type AppError } from '../errors.js';
import type { NetworkContext } from '../network/context.js';
import type { FileReads, FileRecord } from '../store/files/records.js';

/** References looked at for one read: a file that many messages share is readable through any of the first ones. */
const REFS_CHECKED = 200;

/** What a file the caller may not read answers, and one that is not there. */
export const missingFile = (id: string): AppError => notFound(`file ${id}`);

/** The credential an upload is kept under: a token's or an agent's; none for anonymous callers. */
export function uploaderOf(p: Principal): string | undefined {
  return p.kind === 'static' || p.kind === 'agent' || p.kind === 'trusted' ? p.credentialKey : undefined;
}

/** Whether `p` may read `file`. */
export async function mayRead(ctx: NetworkContext, files: FileReads, p: Principal, file: FileRecord): Promise<boolean> {
  if (p.kind === 'trusted') return true;
  const uploader = uploaderOf(p);
  if (uploader !== undefined && uploader === file.uploaded_by) return true;
  const viewer = viewerOf(p);
  const net = ctx.config.network.id;
  const refs = await files.refs(file.id);
  for (const ref of refs.slice(0, REFS_CHECKED)) {
    const rec = await ctx.store.getMessage(ref.message_id);
    if (!rec || rec.message.deleted_at !== undefined) continue;
    const target = rec.message.target;
    if (target.kind === 'dm' && !ctx.config.server.direct_messages) continue;
    const room = target.kind === 'dm' ? undefined : await ctx.store.getRoom(target.room_id);
    if (target.kind !== 'dm' && (!room || room.removed_at)) continue;
    if (canSeeMessage(viewer, target, room, net)) return true;
  }
  return false;
}

/** The file `id` if `p` may read it; otherwise 404, exactly as for an id that is not stored. */
export async function readableFile(ctx: NetworkContext, files: FileReads, p: Principal, id: string): Promise<FileRecord> {
  const file = await files.get(id);
  if (!file || !(await mayRead(ctx, files, p, file))) throw missingFile(id);
  return file;
}
