// People's read markers (#29 part 4): per person and conversation, the newest message that person
// has seen in the console, so unread counts follow them from one browser to another. A marker only
// moves forward. Pure: every backend applies the same rule (SQL backends as a conditional upsert).

/** One person's marker in one conversation. */
export interface PersonReadMarker {
  /** Conversation key: `room:<id>`, `thread:<id>`, `dm:<id>`, or `*` (when the person's markers began). */
  conv: string;
  /** The newest message read (empty for `*`). */
  message_id: string;
  /** That message's created_at: what "newer" is measured by. */
  at: string;
}

/**
 * Moves one person's markers forward; a marker older than the stored one changes nothing. Never
 * reads stored state in the decision, so it cannot race: the backend applies the same comparison.
 */
export interface PersonReadOp {
  op: 'person.read';
  /** Who: `token:<id>`, `agent:<id>`, or `trusted` (auth off). */
  person: string;
  markers: PersonReadMarker[];
}

/** Whether `next` replaces `prev` (the same rule as agents' read markers: not older, another message). */
export function advancesMarker(prev: PersonReadMarker | undefined, next: PersonReadMarker): boolean {
  return prev === undefined || (prev.at <= next.at && prev.message_id !== next.message_id);
}
