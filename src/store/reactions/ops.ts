// The reactions concern's write intent, its outcome and the effects it resolves to (decide.ts).

import type { ServiceEvent } from '../../protocol/types.js';
import type { ReactionRecord } from './records.js';

/**
 * Adds or removes one actor's reaction to a stored message (`not_found` when it is not stored).
 * Adding one already there, or removing one absent, changes nothing (`unchanged`). Adding an emoji
 * the message does not carry yet when it already carries `max_distinct` distinct ones changes
 * nothing (`limit`). `event` is appended only when something changed, with the emoji's count after.
 */
export interface ReactionChangeOp {
  op: 'reaction.change';
  reaction: Omit<ReactionRecord, 'created_at'>;
  action: 'add' | 'remove';
  max_distinct: number;
  at: string;
  event: (count: number) => ServiceEvent;
}

/** What a reaction.change did, with the emoji's count after it. */
export interface ReactionChangeOutcome {
  op: 'reaction.change';
  status: 'added' | 'removed' | 'unchanged' | 'limit';
  count: number;
}

/** What a reaction.change does to stored state. */
export type ReactionEffect =
  | { op: 'reaction.put'; reaction: ReactionRecord }
  | { op: 'reaction.delete'; message_id: string; emoji: string; by: string };

export const isReactionEffect = (e: { op: string }): e is ReactionEffect => e.op === 'reaction.put' || e.op === 'reaction.delete';

/** One message's reactions after `e` (records oldest first; `e` is about this message). */
export function afterEffect(list: readonly ReactionRecord[], e: ReactionEffect): ReactionRecord[] {
  if (e.op === 'reaction.put') return [...list, { ...e.reaction }];
  return list.filter((x) => !(x.emoji === e.emoji && x.by === e.by));
}

/** The message an effect is about. */
export const messageOf = (e: ReactionEffect): string => (e.op === 'reaction.put' ? e.reaction.message_id : e.message_id);

// This concern's row of the store's op, outcome and effect unions (part.ts, PartTypes).
declare module '../part.js' {
  interface PartTypes {
    reactions: { op: ReactionChangeOp; outcome: ReactionChangeOutcome; effect: ReactionEffect };
  }
}
