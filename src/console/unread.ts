// Unread counts for the console (#29 part 4): per signed-in person, the messages of each room and
// DM they may see that are newer than their read marker there (or than when their markers began).
// Markers live in the store (the person-read part, src/store/person-read/, which the console
// feature declares), so they follow the person to any browser.

import { AppError, badRequest, notFound } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { canSeeDm, canSeeRoom, dmFilterOf, roomFilterOf, type Viewer, viewerOf } from '../auth/visibility.js';
import { visibleMessage } from '../network/access.js';
import type { NetworkContext } from '../network/context.js';
import { personReadPart } from '../store/person-read/part.js';
import type { PersonReadMarker, PersonReadReads } from '../store/person-read/records.js';

/** How many of a conversation's newest messages are looked at: past it the count is "N+". */
export const UNREAD_WINDOW = 100;
/** The marker that says when a person's markers began: older messages count as read. */
const SINCE = '*';

/** Whose markers a principal keeps; undefined for an anonymous visitor (nothing to keep). */
export function personOf(p: Principal): string | undefined {
  if (p.kind === 'static') return `token:${p.tokenId}`;
  if (p.kind === 'agent') return `agent:${p.agentId}`;
  if (p.kind === 'trusted') return 'trusted';
  return undefined;
}

function requirePerson(p: Principal): string {
  const person = personOf(p);
  if (person === undefined) throw new AppError('unauthorized', 'unread counts are kept for a signed-in person: sign in first');
  return person;
}

export interface UnreadEntry {
  conversation: string;
  unread: number;
  /** The count is a lower bound (every message looked at was unread). */
  more: boolean;
  marker?: { message_id: string; at: string };
}

export interface UnreadView {
  person: string;
  since: string;
  conversations: UnreadEntry[];
}

/** How many of `messages` (oldest first, the newest window) are newer than the marker or `since`, tombstones aside. Pure. */
export function countUnread(
  messages: readonly { id: string; created_at: string; deleted_at?: string }[],
  marker: { message_id: string; at: string } | undefined,
  since: string,
  full: boolean,
): { unread: number; more: boolean } {
  let start: number;
  const i = marker ? messages.findIndex((m) => m.id === marker.message_id) : -1;
  if (i >= 0) start = i + 1;
  else {
    const after = marker?.at ?? since;
    const j = messages.findIndex((m) => m.created_at > after);
    start = j < 0 ? messages.length : j;
  }
  // A tombstone keeps its place (the marker may name it) but is nothing to read.
  let unread = 0;
  for (let k = start; k < messages.length; k++) if (messages[k]!.deleted_at === undefined) unread++;
  return { unread, more: full && start === 0 && unread > 0 };
}

/** The markers' reads; a store opened without the console's part keeps none. */
function markerReads(ctx: NetworkContext): PersonReadReads {
  const reads = ctx.store.part(personReadPart);
  if (!reads) throw notFound('unread counts: this network does not keep read markers');
  return reads;
}

/** The person's markers, with `since` written on first use (nothing before it is unread). */
async function markersOf(ctx: NetworkContext, person: string): Promise<{ since: string; byConv: Map<string, PersonReadMarker> }> {
  const reads = markerReads(ctx);
  let list = await reads.markers(person);
  if (!list.some((m) => m.conv === SINCE)) {
    await ctx.store.write([{ op: 'person.read', person, markers: [{ conv: SINCE, message_id: '', at: new Date().toISOString() }] }]);
    list = await reads.markers(person);
  }
  const byConv = new Map(list.map((m) => [m.conv, m]));
  return { since: byConv.get(SINCE)?.at ?? new Date(0).toISOString(), byConv };
}

interface Conv {
  key: string;
  /** When a DM last changed: one not changed since the marker needs no read. */
  last?: string;
}

/**
 * The conversations an operator counts: every room and DM, since it sees the whole network (an
 * observe or admin token without an agent list, or auth off). Operators are configured, not
 * self-registered, and the network is theirs.
 */
async function everyConversation(ctx: NetworkContext, dms: boolean): Promise<Conv[]> {
  const convs: Conv[] = (await ctx.store.listRooms()).map((r) => ({ key: `room:${r.id}` }));
  if (dms) for (const d of await ctx.store.listDms()) convs.push({ key: `dm:${d.id}`, last: d.last_message_at });
  return convs;
}

/**
 * The conversations anyone else counts (issue 38): the rooms its agents are members of and their
 * DMs, read through the store's member index, plus those it holds a read marker in (a public room
 * it read without joining). A public room it neither joined nor read is not counted, so what a
 * call costs follows the caller's conversations, never how many rooms the network holds.
 */
async function callersConversations(
  ctx: NetworkContext,
  v: Viewer,
  dms: boolean,
  markers: ReadonlyMap<string, PersonReadMarker>,
): Promise<Conv[]> {
  const net = ctx.config.network.id;
  // The member ids the visibility filters name for the caller's agents (both spellings of each):
  // a room or DM found by them is one the caller may see.
  const members = roomFilterOf(v, net).members ?? [];
  const participants = (dms && dmFilterOf(v, net)?.participants) || [];
  const own =
    members.length + participants.length === 0 ? { rooms: [], dms: [] } : await ctx.store.conversationsWith({ members, participants });
  const rooms: Conv[] = own.rooms.map((r) => ({ key: `room:${r.id}` }));
  const dmConvs: Conv[] = own.dms.map((d) => ({ key: `dm:${d.id}`, last: d.last_message_at }));
  const seen = new Set([...rooms, ...dmConvs].map((c) => c.key));
  for (const key of markers.keys()) {
    if (seen.has(key)) continue;
    if (key.startsWith('room:')) {
      const r = await ctx.store.getRoom(key.slice('room:'.length));
      if (r && !r.removed_at && canSeeRoom(v, r, net)) rooms.push({ key });
    } else if (dms && key.startsWith('dm:')) {
      const d = await ctx.store.getDm(key.slice('dm:'.length));
      if (d && canSeeDm(v, d, net)) dmConvs.push({ key, last: d.last_message_at });
    }
  }
  return [...rooms, ...dmConvs];
}

/** GET /v1/unread: counts for the caller's rooms and DMs (every one for an operator). */
export async function unreadView(ctx: NetworkContext, p: Principal): Promise<UnreadView> {
  const person = requirePerson(p);
  const { since, byConv } = await markersOf(ctx, person);
  const v = viewerOf(p);
  const dms = ctx.config.server.direct_messages && v.dms;
  const convs = v.all ? await everyConversation(ctx, dms) : await callersConversations(ctx, v, dms, byConv);
  const conversations: UnreadEntry[] = [];
  for (const c of convs) {
    const m = byConv.get(c.key);
    const marker = m ? { message_id: m.message_id, at: m.at } : undefined;
    // A DM says when it last changed: nothing newer than the marker needs no read.
    if (c.last !== undefined && c.last <= (marker?.at ?? since)) {
      conversations.push({ conversation: c.key, unread: 0, more: false, ...(marker ? { marker } : {}) });
      continue;
    }
    const page = await ctx.store.listMessages(c.key, { limit: UNREAD_WINDOW });
    const counts = countUnread(page.items, marker, since, page.items.length >= UNREAD_WINDOW);
    conversations.push({ conversation: c.key, ...counts, ...(marker ? { marker } : {}) });
  }
  return { person, since, conversations };
}

/** POST /v1/unread: moves the caller's marker of a message's conversation up to that message. */
export async function markRead(
  ctx: NetworkContext,
  p: Principal,
  body: { message_id: string },
): Promise<{ conversation: string; marker: { message_id: string; at: string } }> {
  const person = requirePerson(p);
  const reads = markerReads(ctx);
  const { rec } = await visibleMessage(ctx, p, body.message_id);
  if (!rec.conv) throw badRequest('the message has no conversation');
  const marker = { conv: rec.conv, message_id: rec.message.id, at: rec.message.created_at };
  await ctx.store.write([{ op: 'person.read', person, markers: [marker] }]);
  const now = (await reads.markers(person)).find((m) => m.conv === rec.conv) ?? marker;
  return { conversation: rec.conv, marker: { message_id: now.message_id, at: now.at } };
}
