// What a group commit's NOTIFY carries (append-sql.ts): its last seq, followed, when the whole fits
// in one notification, by its events as stored and the rooms their messages were decided on.
// Another instance's feed then delivers those events without reading them back (feed.ts): no query
// and no wait for the next spaced read per commit. A payload that would not fit carries the seq
// alone, a wake-up to read by cursor; so does every other write (effects-sql.ts). An instance of
// another version that cannot parse a payload's tail reads by cursor too (during a rolling upgrade).
//
// The events are the rows' own JSON texts spliced into one array, not serialized again: the event
// body (its message a null placeholder when the message goes by reference) beside the message body,
// which the subscriber puts together as a read of the rows does (rows.ts `eventOf`). The rooms
// follow on a line of their own, so a subscriber that has just parsed the same text (a room's every
// message carries it until the room changes) takes the record it made then (`CarriedRooms`):
// parsed once, frozen, and so the same object each event's audience is built from.

import type { Message, ServiceEvent } from '../../protocol/types.js';
import type { RoomRecord, StoredEvent } from '../types.js';
import { giveRooms } from '../event-rooms.js';
import { deepFreeze } from '../deep-freeze.js';

/** PostgreSQL refuses payloads of 8000 bytes or more; the seq in front takes at most 20 more. */
const TAIL_MAX = 8000 - 1 - 20;

/** An event row's texts: the event body, and the message body when it goes by reference. */
export interface EventTexts {
  body: string;
  mbody: string | null;
}

/**
 * What follows the seq in the payload: ' ' and the events' JSON, then a newline and the rooms' JSON
 * (JSON holds no raw newline), or '' when even the events would not fit.
 */
export function notifyTail(events: readonly EventTexts[], rooms: readonly RoomRecord[]): string {
  const bare = ` {"events":[${events.map((e) => `[${e.body},${e.mbody ?? 'null'}]`).join(',')}]}`;
  const withRooms = rooms.length > 0 ? `${bare}\n${JSON.stringify(rooms)}` : '';
  if (withRooms && Buffer.byteLength(withRooms) <= TAIL_MAX) return withRooms;
  // Without the rooms, a subscriber reads the room for its audiences, as for a read page's later events.
  return Buffer.byteLength(bare) <= TAIL_MAX ? bare : '';
}

/** The committing write's last seq (NaN for a payload this version does not know). */
export function lastOf(payload: string): number {
  const space = payload.indexOf(' ');
  return Number(space < 0 ? payload : payload.slice(0, space));
}

/** Room texts a subscriber remembers (a group commit's rooms are one text). */
const CARRIED_ROOMS_MAX = 64;

/** The rooms of recent payloads by their text, parsed and frozen once. */
export class CarriedRooms {
  private readonly byText = new Map<string, readonly RoomRecord[]>();

  of(text: string): readonly RoomRecord[] {
    let rooms = this.byText.get(text);
    if (rooms) return rooms;
    rooms = deepFreeze(JSON.parse(text) as RoomRecord[]);
    // The oldest text goes first: a room that changed is carried as a new text from then on.
    if (this.byText.size >= CARRIED_ROOMS_MAX) this.byText.delete(this.byText.keys().next().value!);
    this.byText.set(text, rooms);
    return rooms;
  }
}

type Tail = { events: [ServiceEvent & { message?: Message | null }, Message | null][] };

/** The events the payload carries, with their seqs up to `last`; undefined when it carries none. */
export function eventsOf(payload: string, last: number, carried: CarriedRooms): StoredEvent[] | undefined {
  const space = payload.indexOf(' ');
  if (space < 0) return undefined;
  const nl = payload.indexOf('\n', space);
  let tail: Tail;
  let rooms: readonly RoomRecord[] | undefined;
  try {
    tail = JSON.parse(nl < 0 ? payload.slice(space + 1) : payload.slice(space + 1, nl)) as Tail;
    if (nl >= 0) rooms = carried.of(payload.slice(nl + 1));
  } catch {
    return undefined;
  }
  const first = last - tail.events.length + 1;
  const events = tail.events.map(([event, message], i): StoredEvent => {
    if (message !== null) event.message = message;
    return { seq: first + i, event: event as ServiceEvent };
  });
  if (rooms) giveRooms(rooms, events);
  return events;
}
