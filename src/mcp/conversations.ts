// whoami and list_conversations: what this agent is and where it can read, with unread counts since
// its read markers, over the typed HTTP client.

import { collectAll } from '../client/pages.js';
import type { SvcClient } from '../client/svc-client.js';
import type { Message, NetworkDocument, Room } from '../protocol/types.js';
import { conversationKey, isOwn, replyHint, type Conversation, type Self } from './format.js';
import { unreadIn, type Markers } from './read-markers.js';
import type { FilesPort } from './files-port.js';

/** How many of a conversation's newest messages are looked at for its unread count. */
export const UNREAD_WINDOW = 50;
/** Threads listed per room (the most recently active). */
const THREADS_PER_ROOM = 20;

/** The calls the tools make to the network: the typed HTTP client's, or the same in process. */
export type NetworkApi = Pick<
  SvcClient,
  | 'network'
  | 'listRooms'
  | 'getAgent'
  | 'roomMessages'
  | 'roomThreads'
  | 'getThread'
  | 'threadMessages'
  | 'listDms'
  | 'getDm'
  | 'dmMessages'
  | 'search'
  | 'send'
  | 'react'
  | 'editMessage'
  | 'deleteMessage'
  | 'receipts'
>;

export interface ToolContext {
  client: NetworkApi;
  self: Self;
  markers: Markers;
  /** Uploads (send_file, create_upload_url); absent where the server takes none. */
  files?: FilesPort;
}

const isMember = (r: Room, self: Self): boolean => r.members.some((m) => m === self.agent_id || m === self.scoped || m === self.fqid);

export interface WhoAmI {
  network: { id: string; name: string; version: string; direct_messages: boolean };
  agent: { id: string; fqid: string; name?: string; registered: boolean };
  rooms: string[];
}

export async function whoami(ctx: ToolContext): Promise<WhoAmI> {
  const [doc, rooms, agent] = await Promise.all([
    ctx.client.network(),
    collectAll((q) => ctx.client.listRooms(q).then((r) => ({ items: r.rooms, page: r.page }))),
    ctx.client.getAgent(ctx.self.agent_id).catch(() => undefined),
  ]);
  return {
    network: networkOf(doc),
    agent: { id: ctx.self.agent_id, fqid: ctx.self.fqid, ...(agent?.name ? { name: agent.name } : {}), registered: agent !== undefined },
    rooms: rooms.filter((r) => isMember(r, ctx.self)).map((r) => r.id),
  };
}

const networkOf = (d: NetworkDocument): WhoAmI['network'] => ({
  id: d.id,
  name: d.name,
  version: d.version,
  direct_messages: d.capabilities.direct_messages,
});

export interface ConversationEntry {
  conversation: Conversation;
  /** Room name; thread's parent message; DM's other participants. */
  title: string;
  member?: boolean;
  unread: number;
  /** True when the unread count is a lower bound (a full window was unread). */
  unread_more: boolean;
  last_message_at?: string;
  message_count?: number;
  reply_with: string;
}

export async function listConversations(ctx: ToolContext, dmsEnabled: boolean): Promise<ConversationEntry[]> {
  const { client, self } = ctx;
  const rooms = await collectAll((q) => client.listRooms(q).then((r) => ({ items: r.rooms, page: r.page })));
  // Rooms this agent is in come first: that is where it is expected to speak.
  rooms.sort((a, b) => Number(isMember(b, self)) - Number(isMember(a, self)) || a.id.localeCompare(b.id));
  const out: ConversationEntry[] = [];
  for (const room of rooms) {
    const c: Conversation = { kind: 'room', room_id: room.id };
    const page = await client.roomMessages(room.id, { limit: UNREAD_WINDOW });
    out.push({
      conversation: c,
      title: room.name,
      member: isMember(room, self),
      ...unread(ctx, c, page.messages),
      ...lastOf(page.messages),
      reply_with: replyHint(c),
    });
    const threads = (await client.roomThreads(room.id, { limit: 500 })).threads
      .sort((a, b) => b.last_message_at.localeCompare(a.last_message_at))
      .slice(0, THREADS_PER_ROOM);
    for (const t of threads) {
      const tc: Conversation = { kind: 'thread', room_id: room.id, thread_id: t.id };
      const counts = await unreadSince(ctx, tc, t.last_message_at, () =>
        client.threadMessages(t.id, { limit: UNREAD_WINDOW }).then((p) => p.messages),
      );
      out.push({
        conversation: tc,
        title: t.parent_message_id ? `thread on ${t.parent_message_id}` : `thread ${t.id}`,
        ...counts,
        last_message_at: t.last_message_at,
        message_count: t.message_count,
        reply_with: replyHint(tc),
      });
    }
  }
  if (dmsEnabled) {
    const dms = await collectAll((q) => client.listDms(q).then((r) => ({ items: r.dms, page: r.page })));
    // A static token without an allowlist sees every DM: list only this agent's.
    for (const dm of dms.filter((d) => d.participant_ids.includes(self.scoped))) {
      const dc: Conversation = { kind: 'dm', dm_id: dm.id, participant_ids: dm.participant_ids };
      const counts = await unreadSince(ctx, dc, dm.last_message_at, () =>
        client.dmMessages(dm.id, { limit: UNREAD_WINDOW }).then((p) => p.messages),
      );
      const others = dm.participant_ids
        .filter((p) => p !== self.scoped)
        .map((p) => (p.startsWith(`${self.network_id}:`) ? p.slice(self.network_id.length + 1) : p));
      out.push({
        conversation: dc,
        title: `DM with ${others.join(', ')}`,
        ...counts,
        last_message_at: dm.last_message_at,
        message_count: dm.message_count,
        reply_with: replyHint(dc),
      });
    }
  }
  return out;
}

function lastOf(messages: readonly Message[]): { last_message_at?: string } {
  const last = messages[messages.length - 1];
  return last ? { last_message_at: last.created_at } : {};
}

function unread(ctx: ToolContext, c: Conversation, messages: readonly Message[]): { unread: number; unread_more: boolean } {
  const r = unreadIn(
    // A tombstone keeps its place but is nothing to read: it counts like the agent's own.
    messages.map((m) => ({ id: m.id, created_at: m.created_at, own: isOwn(m, ctx.self) || m.deleted_at !== undefined })),
    ctx.markers.get(conversationKey(c)),
    ctx.markers.since,
    messages.length >= UNREAD_WINDOW,
  );
  return { unread: r.count, unread_more: r.more };
}

/** Threads and DMs say when they last changed: nothing newer than the marker needs no fetch. */
async function unreadSince(
  ctx: ToolContext,
  c: Conversation,
  lastAt: string,
  fetch: () => Promise<Message[]>,
): Promise<{ unread: number; unread_more: boolean }> {
  const readTo = ctx.markers.get(conversationKey(c))?.at ?? ctx.markers.since;
  if (lastAt <= readTo) return { unread: 0, unread_more: false };
  return unread(ctx, c, await fetch());
}

/** Marks a conversation read up to the newest of `messages`. */
export async function markRead(ctx: ToolContext, c: Conversation, messages: readonly Message[]): Promise<void> {
  const last = messages[messages.length - 1];
  if (last) await ctx.markers.advance(conversationKey(c), { id: last.id, at: last.created_at });
}

/** The list as compact text. */
export function conversationLines(entries: readonly ConversationEntry[]): string[] {
  if (entries.length === 0) return ['No conversations this agent can read yet.'];
  return entries.map((e) => {
    const c = e.conversation;
    const where = c.kind === 'room' ? `room ${c.room_id}` : c.kind === 'thread' ? `  thread ${c.thread_id}` : `DM ${c.dm_id}`;
    const unreadText = e.unread > 0 ? `${e.unread}${e.unread_more ? '+' : ''} unread` : 'no unread';
    const extra = [
      e.title !== (c.kind === 'room' ? c.room_id : '') ? e.title : '',
      e.member === false ? 'not a member' : '',
      e.last_message_at ? `last ${e.last_message_at.slice(0, 19)}Z` : '',
    ]
      .filter(Boolean)
      .join(', ');
    return `${where}${extra ? ` (${extra})` : ''}: ${unreadText} · ${e.reply_with}`;
  });
}
