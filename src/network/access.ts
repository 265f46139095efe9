// Finds an entity the principal may see, or throws the right error: 404 for what does not
// exist or is hidden from a credentialed caller, 401 for a private entity asked anonymously.

import { AppError, notFound, unauthorized } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { canSeeDm, canSeeRoom, viewerOf, type Viewer } from '../auth/visibility.js';
import type { DmRecord, RoomRecord, ThreadRecord } from '../store/types.js';
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
