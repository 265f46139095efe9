// What the person-read concern stores (#29 part 4): per person and conversation, the newest message
// that person has seen in the console, so unread counts (src/console/unread.ts) follow them from one
// browser to another.

/** One person's marker in one conversation. */
export interface PersonReadMarker {
  /** Conversation key: `room:<id>`, `thread:<id>`, `dm:<id>`, or `*` (when the person's markers began). */
  conv: string;
  /** The newest message read (empty for `*`). */
  message_id: string;
  /** That message's created_at: what "newer" is measured by. */
  at: string;
}

/** What the person-read part offers to readers (`store.part(personReadPart)`). */
export interface PersonReadReads {
  /** One person's markers, every conversation (in no particular order). */
  markers(person: string): Promise<PersonReadMarker[]>;
}
