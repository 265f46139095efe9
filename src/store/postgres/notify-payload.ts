// What a group commit's NOTIFY carries (append-sql.ts): its last seq, followed, when the whole fits
// in one notification, by its events as stored and the rooms their messages were decided on.
// Another instance's feed then delivers those events without reading them back (feed.ts): no query
// and no wait for the next spaced read per commit. A payload that would not fit carries the seq
// alone, a wake-up to read by cursor; so does every other write (effects-sql.ts).
//
// The events are the rows' own JSON texts spliced into one array, not serialized again: the event
// body (its message a null placeholder when the message goes by reference) beside the message body,
// which the subscriber puts together as a read of the rows does (rows.ts `eventOf`).

import type { Message, ServiceEvent } from '../../protocol/types.js';
import type { RoomRecord, StoredEvent } from '../types.js';
import { giveRooms } from '../event-rooms.js';

/** PostgreSQL refuses payloads of 8000 bytes or more; the seq in front takes at most 20 more. */
const TAIL_MAX = 8000 - 1 - 20;

/** An event row's texts: the event body, and the message body when it goes by reference. */
export interface EventTexts {
  body: string;
  mbody: string | null;
}

/** What follows the seq in the payload: ' ' and the JSON, or '' when it would not fit. */
export function notifyTail(events: readonly EventTexts[], rooms: readonly RoomRecord[]): string {
  const evs = events.map((e) => `[${e.body},${e.mbody ?? 'null'}]`).join(',');
  const withRooms = rooms.length > 0 ? ` {"rooms":${JSON.stringify(rooms)},"events":[${evs}]}` : '';
  if (withRooms && Buffer.byteLength(withRooms) <= TAIL_MAX) return withRooms;
  // Without the rooms, a subscriber reads the room for its audiences, as for a read page's later events.
  const bare = ` {"events":[${evs}]}`;
  return Buffer.byteLength(bare) <= TAIL_MAX ? bare : '';
}

/** The committing write's last seq (NaN for a payload this version does not know). */
export function lastOf(payload: string): number {
  const space = payload.indexOf(' ');
  return Number(space < 0 ? payload : payload.slice(0, space));
}

type Tail = { rooms?: RoomRecord[]; events: [ServiceEvent & { message?: Message | null }, Message | null][] };

/** The events the payload carries, with their seqs up to `last`; undefined when it carries none. */
export function eventsOf(payload: string, last: number): StoredEvent[] | undefined {
  const space = payload.indexOf(' ');
  if (space < 0) return undefined;
  let tail: Tail;
  try {
    tail = JSON.parse(payload.slice(space + 1)) as Tail;
  } catch {
    return undefined;
  }
  const first = last - tail.events.length + 1;
  const events = tail.events.map(([event, message], i): StoredEvent => {
    if (message !== null) event.message = message;
    return { seq: first + i, event: event as ServiceEvent };
  });
  if (tail.rooms) giveRooms(tail.rooms, events);
  return events;
}
