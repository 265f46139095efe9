// Reactions as message reads show them: per message, one entry per emoji in the order it was first
// used, with its count and who reacted. Messages without reactions keep their shape (no field).
// The stored records' wire shape, so it sits with the store: every read of messages (history,
// search) adds it, below the reactions feature, which only changes them (src/reactions/). A store
// opened without the reactions part adds nothing.

import type { Message, ReactionSummary } from '../../protocol/types.js';
import type { Store } from '../types.js';
import { reactionsPart } from './part.js';
import type { ReactionRecord } from './records.js';

/** The summaries of one message's reactions (records oldest first). */
export function summarize(records: readonly ReactionRecord[]): ReactionSummary[] {
  const byEmoji = new Map<string, ReactionSummary>();
  for (const r of records) {
    let s = byEmoji.get(r.emoji);
    if (!s) byEmoji.set(r.emoji, (s = { emoji: r.emoji, count: 0, by: [] }));
    s.count++;
    s.by.push(r.by);
  }
  return [...byEmoji.values()];
}

/** The messages with their reactions: copies where a message has some, the same objects otherwise. */
export function withSummaries<M extends Message>(messages: readonly M[], records: readonly ReactionRecord[]): M[] {
  if (records.length === 0) return [...messages];
  const byMessage = new Map<string, ReactionRecord[]>();
  for (const r of records) {
    const l = byMessage.get(r.message_id);
    if (l) l.push(r);
    else byMessage.set(r.message_id, [r]);
  }
  return messages.map((m) => {
    const mine = byMessage.get(m.id);
    return mine ? { ...m, reactions: summarize(mine) } : m;
  });
}

/** Reads the reactions of a page of messages (one store read) and adds them. */
export async function withReactions<M extends Message>(store: Store, messages: readonly M[]): Promise<M[]> {
  const reads = store.part(reactionsPart);
  if (messages.length === 0 || !reads) return [...messages];
  return withSummaries(messages, await reads.list(messages.map((m) => m.id)));
}
