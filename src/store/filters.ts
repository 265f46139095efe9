// What the listing filters of the store contract mean, for backends that filter in JS.

import type { Artifact } from '../protocol/types.js';
import { paginate, UnknownCursor } from '../protocol/pagination.js';
import {
  StoreError,
  type ArtifactFilter,
  type DmFilter,
  type DmRecord,
  type ExpiredQuery,
  type PageQuery,
  type PageResult,
  type RoomFilter,
  type RoomRecord,
} from './types.js';

const clone = <T>(v: T): T => structuredClone(v);

export function roomMatches(r: RoomRecord, f: RoomFilter): boolean {
  if (f.all || r.visibility === 'public') return true;
  if (f.pairing !== undefined && r.federation_pairings.includes(f.pairing)) return true;
  return f.members !== undefined && r.members.some((m) => f.members!.includes(m));
}

export function dmMatches(d: DmRecord, f: DmFilter): boolean {
  if (f.all) return true;
  return f.participants !== undefined && d.participant_ids.some((p) => f.participants!.includes(p));
}

/** Whether an artifact belongs to every conversation named by the filter. */
export function artifactMatches(a: Artifact, f: ArtifactFilter): boolean {
  const t = a.target;
  if (f.room_id !== undefined && !((t.kind === 'room' || t.kind === 'thread') && t.room_id === f.room_id)) return false;
  if (f.thread_id !== undefined && !(t.kind === 'thread' && t.thread_id === f.thread_id)) return false;
  if (f.dm_id !== undefined && !(t.kind === 'dm' && t.dm_id === f.dm_id)) return false;
  return true;
}

/** A page of `items` by id cursor, as protocol/pagination.ts defines it. */
export function cursorPage<T>(items: readonly T[], idOf: (item: T) => string, q: PageQuery): PageResult<T> {
  try {
    const s = paginate(items, idOf, q);
    return { items: s.items.map(clone), has_more: s.has_more, has_older: s.has_older };
  } catch (err) {
    if (err instanceof UnknownCursor) throw new StoreError('unknown_cursor', err.message);
    throw err;
  }
}

/**
 * The ids of a conversation's expired messages (`messages` oldest first, as stored), oldest first:
 * created before `q.before`, or older than its newest `q.keep`; at most `q.limit` (ExpiredQuery).
 */
export function expiredOf(messages: readonly { id: string; created_at: string }[], q: ExpiredQuery): string[] {
  const out: string[] = [];
  const overCount = q.keep === undefined ? 0 : Math.max(0, messages.length - q.keep);
  for (let i = 0; i < messages.length && out.length < q.limit; i++) {
    const m = messages[i]!;
    if (i < overCount || (q.before !== undefined && m.created_at < q.before)) out.push(m.id);
    else break;
  }
  return out;
}
