// Finds an entity the principal may see, or throws the right error: 404 for what does not
// exist or is hidden from a credentialed caller, 401 for a private entity asked anonymously.

import { AppError, notFound, unauthorized } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { canSeeDm, canSeeMessage, canSeeRoom, viewerOf, type Viewer } from '../auth/visibility.js';
import type { DmRecord, MessageRecord, RoomRecord, ThreadRecord } from '../store/types.js';
import type { NetworkContext } from './context.js';

function hidden(p: Principal, what: string): AppError {
  return p.kind === 'anonymous' ? unauthorized(`${what} is not public; send a bearer token`) : notFound(what);
}

export async function visibleRoom(ctx: NetworkContext, p: Principal, roomId: string, v: Viewer = viewerOf(p)): Promise<RoomRecord> {
  const room = await ctx.store.getRoom(roomId);
  if (!room || room.removed_at) throw notFound(`room ${roomId}`);
  if (!canSeeRoom(v, room, ctx.config.network.id)) throw hidden(p, `room ${roomId}`);
  return room;
}

export async function visibleThread(
  ctx: NetworkContext,
  p: Principal,
  threadId: string,
): Promise<{ thread: ThreadRecord; room: RoomRecord }> {
  const thread = await ctx.store.getThread(threadId);
  if (!thread) throw notFound(`thread ${threadId}`);
  const room = await ctx.store.getRoom(thread.room_id);
  if (!room || room.removed_at) throw notFound(`thread ${threadId}`);
  if (!canSeeRoom(viewerOf(p), room, ctx.config.network.id)) throw hidden(p, `thread ${threadId}`);
  return { thread, room };
}

/** DM routes: 403 when DMs are off, 401 anonymous, 404 unknown or not a participant's. */
export async function visibleDm(ctx: NetworkContext, p: Principal, dmId: string): Promise<DmRecord> {
  requireDirectMessages(ctx);
  if (p.kind === 'anonymous') throw unauthorized('direct messages need a bearer token');
  const dm = await ctx.store.getDm(dmId);
  if (!dm || !canSeeDm(viewerOf(p), dm, ctx.config.network.id)) throw notFound(`dm ${dmId}`);
  return dm;
}

export function requireDirectMessages(ctx: NetworkContext): void {
  if (!ctx.config.server.direct_messages) {
    throw new AppError('forbidden', 'direct messages are disabled on this network (server.direct_messages: false)');
  }
}

/** A message the caller may see, with its room (absent for a DM). */
export interface VisibleMessage {
  rec: MessageRecord;
  room?: RoomRecord;
}

/**
 * The message `id` if `p` may see it (auth/visibility.ts canSeeMessage). Otherwise the answer is
 * the one an id that does not exist gets, for every caller: 404 `message <id> not found`. Only a
 * caller who sees the DM learns that DMs are switched off (403), as on the DM routes.
 */
export async function visibleMessage(ctx: NetworkContext, p: Principal, id: string): Promise<VisibleMessage> {
  const rec = await ctx.store.getMessage(id);
  const t = rec?.message.target;
  const room = t && t.kind !== 'dm' ? await ctx.store.getRoom(t.room_id) : undefined;
  if (!rec || !canSeeMessage(viewerOf(p), rec.message.target, room, ctx.config.network.id)) throw missingMessage(id);
  if (rec.message.target.kind === 'dm') requireDirectMessages(ctx);
  return { rec, ...(room ? { room } : {}) };
}

/** What any per-message route answers for a message the caller may not see, or that is not there. */
export const missingMessage = (id: string): AppError => notFound(`message ${id}`);
