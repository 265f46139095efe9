// How room intents resolve: create, declare (from config or `svc apply`), remove and membership
// changes, each into room records and the events that announce them.

import {
  StoreError,
  type MembersEvent,
  type OpOutcome,
  type RoomCreateOp,
  type RoomDeclareOp,
  type RoomMembersOp,
  type RoomRecord,
  type RoomRemoveOp,
  type RoomSpec,
} from './types.js';
import type { Effect } from './effects.js';
import type { Overlay } from './overlay.js';

/** `room.create`. */
export function createRoom(view: Overlay, op: RoomCreateOp, put: (e: Effect) => void): OpOutcome {
  const existing = view.room(op.room.id);
  if (existing && !existing.removed_at) throw new StoreError('room_exists', `room ${op.room.id} already exists`);
  const room = newRoom(op.room, op.at, existing);
  put({ op: 'room.put', room });
  put({ op: 'event.append', event: op.event(room) });
  return { op: 'room.create', room, revived: existing !== undefined };
}

/** `room.declare`. */
export function declareRoom(view: Overlay, op: RoomDeclareOp, put: (e: Effect) => void): OpOutcome {
  const existing = view.room(op.room.id);
  const d = op.room;
  if (existing?.removed_at && op.keep_removed) {
    return { op: 'room.declare', room: existing, action: 'unchanged' };
  }
  if (!existing || existing.removed_at) {
    const spec: RoomSpec = {
      id: d.id,
      ...(d.name !== undefined ? { name: d.name } : {}),
      members: d.members ?? [],
      visibility: d.visibility ?? 'public',
      write_policy: d.write_policy ?? 'members',
      ...(d.federation_pairings !== undefined ? { federation_pairings: d.federation_pairings } : {}),
      ...(d.retention !== undefined ? { retention: d.retention } : {}),
    };
    const room = newRoom(spec, op.at, existing);
    put({ op: 'room.put', room });
    put({ op: 'event.append', event: op.events.created(room) });
    return { op: 'room.declare', room, action: 'created' };
  }
  const members = !d.members
    ? existing.members
    : op.members_mode === 'set'
      ? [...d.members]
      : [...existing.members, ...d.members.filter((m) => !existing.members.includes(m))];
  const next: RoomRecord = {
    ...existing,
    name: d.name ?? existing.name,
    members,
    visibility: d.visibility ?? existing.visibility,
    write_policy: d.write_policy ?? existing.write_policy,
    federation_pairings: d.federation_pairings ? [...d.federation_pairings] : existing.federation_pairings,
  };
  // An empty policy clears the room's own (it follows server.retention again).
  const retention = d.retention === undefined ? existing.retention : Object.keys(d.retention).length > 0 ? d.retention : undefined;
  if (retention) next.retention = retention;
  else delete next.retention;
  const membersChanged = !sameList(next.members, existing.members);
  const changed =
    next.name !== existing.name ||
    membersChanged ||
    next.visibility !== existing.visibility ||
    next.write_policy !== existing.write_policy ||
    !sameList(next.federation_pairings, existing.federation_pairings) ||
    !sameRetention(next.retention, existing.retention);
  if (!changed) {
    return { op: 'room.declare', room: existing, action: 'unchanged' };
  }
  next.updated_at = op.at;
  put({ op: 'room.put', room: next });
  if (membersChanged) {
    const added = next.members.filter((m) => !existing.members.includes(m));
    const removed = existing.members.filter((m) => !next.members.includes(m));
    put({ op: 'event.append', event: op.events.members(next, added, removed) });
  }
  return { op: 'room.declare', room: next, action: 'updated' };
}

/** `room.remove`. */
export function removeRoom(view: Overlay, op: RoomRemoveOp, put: (e: Effect) => void): OpOutcome {
  const room = view.room(op.id);
  if (!room || room.removed_at) throw new StoreError('not_found', `room ${op.id}`);
  put({ op: 'room.put', room: { ...room, removed_at: op.at, updated_at: op.at } });
  put({ op: 'event.append', event: op.event(room) });
  return { op: 'room.remove', room };
}

/** `room.members.change`. */
export function changeRoomMembers(view: Overlay, op: RoomMembersOp, put: (e: Effect) => void): OpOutcome {
  const room = view.room(op.room_id);
  if (!room || room.removed_at) throw new StoreError('not_found', `room ${op.room_id}`);
  const r = changeMembers(room, op.add, op.remove, op.at, op.event);
  if (r.effects.length > 0) for (const e of r.effects) put(e);
  return { op: 'room.members.change', room: r.room, added: r.added, removed: r.removed };
}

function newRoom(spec: RoomSpec, at: string, removed: RoomRecord | undefined): RoomRecord {
  return {
    id: spec.id,
    name: spec.name ?? removed?.name ?? spec.id,
    members: [...spec.members],
    visibility: spec.visibility,
    write_policy: spec.write_policy,
    federation_pairings: [...(spec.federation_pairings ?? removed?.federation_pairings ?? [])],
    ...(spec.retention && Object.keys(spec.retention).length > 0
      ? { retention: spec.retention }
      : !spec.retention && removed?.retention
        ? { retention: removed.retention }
        : {}),
    created_at: removed?.created_at ?? at,
    updated_at: at,
  };
}

/** A membership change against the room's current list (see RoomMembersOp). */
export function changeMembers(
  room: RoomRecord,
  add: readonly string[],
  remove: readonly string[],
  at: string,
  event: MembersEvent,
): { room: RoomRecord; added: string[]; removed: string[]; effects: Effect[] } {
  const added = [...new Set(add)].filter((m) => !room.members.includes(m));
  const removed = [...new Set(remove)].filter((m) => room.members.includes(m) && !added.includes(m));
  if (added.length === 0 && removed.length === 0) return { room, added, removed, effects: [] };
  const next: RoomRecord = { ...room, members: [...room.members.filter((m) => !removed.includes(m)), ...added], updated_at: at };
  return {
    room: next,
    added,
    removed,
    effects: [
      { op: 'room.put', room: next },
      { op: 'event.append', event: event(next, added, removed) },
    ],
  };
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Same policy, whatever the key order (Postgres keeps it as jsonb, which orders keys its own way). */
function sameRetention(a: RoomRecord['retention'], b: RoomRecord['retention']): boolean {
  return a?.max_age === b?.max_age && a?.max_messages === b?.max_messages;
}
