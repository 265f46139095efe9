// What the reactions concern stores (#28 reactions), as the store's readers and writers see it.

/** One actor's reaction to one message (#28 reactions). */
export interface ReactionRecord {
  message_id: string;
  /** The emoji itself, or a `:name:` shortcode. */
  emoji: string;
  /** Who reacted, scoped: `<network_id>:<id>`. */
  by: string;
  created_at: string;
}

/** What the reactions part offers to readers (`store.part(reactionsPart)`). */
export interface ReactionReads {
  /** The reactions to these messages, oldest first. */
  list(messageIds: readonly string[]): Promise<ReactionRecord[]>;
}
