// Histories and conversation listings, each visible-or-refused before pagination; message pages
// are capped by bytes as well as count (page-budget.ts). A page of messages read is told to what
// keeps track of reads (network/reached.ts), for whom the request reads as (`as`, the routes' `?as=`).

import { badRequest } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { dmFilterOf, viewerOf } from '../auth/visibility.js';
import { pageOf, type Window } from '../protocol/pagination.js';
import type { Artifact, DirectConversation, Message, Page, Thread } from '../protocol/types.js';
import type { ArtifactFilter, PageResult } from '../store/types.js';
import { withAdditions, type NetworkContext } from './context.js';
import { requireDirectMessages, visibleDm, visibleRoom, visibleThread } from './access.js';
import { budgetedList, pageBudgetOf } from './page-budget.js';
import { readingAs } from './reached.js';
import { dmView, threadView } from './views.js';
import { unauthorized } from '../errors.js';

const toPage = <T extends { id: string }>(r: PageResult<T>): Page => pageOf(r, (x) => x.id);

/** One conversation's page of messages, with what features add to them, noted read (in the background) by `p` as `as`. */
async function messagePage(
  ctx: NetworkContext,
  p: Principal,
  as: string | null,
  r: PageResult<Message>,
): Promise<{ messages: Message[]; page: Page }> {
  const messages = await withAdditions(ctx, r.items);
  const reader = readingAs(p, as ?? undefined, ctx.config.server.human_ingress);
  if (reader) ctx.extensions.reached.pageRead(reader, messages);
  return { messages, page: toPage(r) };
}

export async function roomMessages(
  ctx: NetworkContext,
  p: Principal,
  roomId: string,
  w: Window,
  as: string | null,
): Promise<{ messages: Message[]; page: Page }> {
  await visibleRoom(ctx, p, roomId);
  return messagePage(ctx, p, as, await budgetedList((q) => ctx.store.listMessages(`room:${roomId}`, q), w, pageBudgetOf(ctx)));
}

export async function roomThreads(
  ctx: NetworkContext,
  p: Principal,
  roomId: string,
  w: Window,
): Promise<{ threads: Thread[]; page: Page }> {
  await visibleRoom(ctx, p, roomId);
  const r = await ctx.store.listThreads(roomId, w);
  const net = ctx.config.network.id;
  return { threads: r.items.map((t) => threadView(net, t)), page: toPage(r) };
}

export async function getThread(ctx: NetworkContext, p: Principal, threadId: string): Promise<Thread> {
  return threadView(ctx.config.network.id, (await visibleThread(ctx, p, threadId)).thread);
}

export async function threadMessages(
  ctx: NetworkContext,
  p: Principal,
  threadId: string,
  w: Window,
  as: string | null,
): Promise<{ messages: Message[]; page: Page }> {
  await visibleThread(ctx, p, threadId);
  return messagePage(ctx, p, as, await budgetedList((q) => ctx.store.listMessages(`thread:${threadId}`, q), w, pageBudgetOf(ctx)));
}

export async function listDms(ctx: NetworkContext, p: Principal, w: Window): Promise<{ dms: DirectConversation[]; page: Page }> {
  requireDirectMessages(ctx);
  if (p.kind === 'anonymous') throw unauthorized('direct messages need a bearer token');
  const net = ctx.config.network.id;
  const v = viewerOf(p);
  const filter = dmFilterOf(v, net);
  const s = filter ? await ctx.store.pageDms(filter, w) : { items: [], has_more: false, has_older: false };
  return { dms: s.items.map((d) => dmView(net, d)), page: toPage(s) };
}

export async function getDm(ctx: NetworkContext, p: Principal, dmId: string): Promise<DirectConversation> {
  return dmView(ctx.config.network.id, await visibleDm(ctx, p, dmId));
}

export async function dmMessages(
  ctx: NetworkContext,
  p: Principal,
  dmId: string,
  w: Window,
  as: string | null,
): Promise<{ messages: Message[]; page: Page }> {
  await visibleDm(ctx, p, dmId);
  return messagePage(ctx, p, as, await budgetedList((q) => ctx.store.listMessages(`dm:${dmId}`, q), w, pageBudgetOf(ctx)));
}

/** Artifacts of the named conversations; at least one of room_id, thread_id, dm_id. */
export async function listArtifacts(
  ctx: NetworkContext,
  p: Principal,
  f: ArtifactFilter,
  w: Window,
): Promise<{ artifacts: Artifact[]; page: Page }> {
  if (f.room_id === undefined && f.thread_id === undefined && f.dm_id === undefined) {
    throw badRequest('query: one of room_id, thread_id or dm_id is required');
  }
  if (f.dm_id !== undefined) await visibleDm(ctx, p, f.dm_id);
  if (f.room_id !== undefined) await visibleRoom(ctx, p, f.room_id);
  if (f.thread_id !== undefined) await visibleThread(ctx, p, f.thread_id);
  const r = await ctx.store.listArtifacts(f, w);
  return { artifacts: r.items, page: toPage(r) };
}
