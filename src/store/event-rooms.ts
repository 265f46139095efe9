// The room a stored event's message is in, handed over with the event (StoredEvent.room): live
// delivery takes the audience from it instead of reading the room again. Each backend gives it
// where it knows the room as the event was committed: Postgres from the records a send was decided
// on (postgres/basis.ts) and from another instance's notification (postgres/notify-payload.ts),
// sqlite from its own cached rows (sqlite/index.ts).

import type { RoomRecord, StoredEvent } from './types.js';

/** Gives each event whose message is in one of `rooms` that room, unless it has one. */
export function giveRooms(rooms: readonly RoomRecord[], events: readonly StoredEvent[]): void {
  if (rooms.length === 0) return;
  const byId = new Map(rooms.map((r) => [r.id, r]));
  giveRoomsBy((id) => byId.get(id), events);
}

/** Gives each event whose message is in a room `room(id)` knows that room, unless it has one. */
export function giveRoomsBy(room: (id: string) => RoomRecord | undefined, events: readonly StoredEvent[]): void {
  for (const e of events) {
    if (e.room) continue;
    const t = e.event.message?.target;
    const id = e.event.room_id ?? (t?.kind === 'room' ? t.room_id : undefined);
    const r = id === undefined ? undefined : room(id);
    if (r) e.room = r;
  }
}
