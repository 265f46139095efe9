// The reactions concern's part of the resolver (intents.ts): a reaction.change decided against the
// current state, and the batch overlay's copy of the reactions its earlier effects changed.

import type { CoreView, Put } from '../part.js';
import { StoreError } from '../types.js';
import { afterEffect, messageOf, type ReactionChangeOp, type ReactionChangeOutcome, type ReactionEffect } from './ops.js';
import type { ReactionRecord } from './records.js';

/** What a reaction.change is decided on. */
export interface ReactionState {
  /** The reactions to one message, oldest first. */
  reactions(messageId: string): ReactionRecord[];
}

export function changeReaction(
  core: CoreView,
  state: ReactionState,
  op: ReactionChangeOp,
  put: Put<ReactionEffect>,
): ReactionChangeOutcome {
  const r = op.reaction;
  if (!core.hasMessage(r.message_id)) throw new StoreError('not_found', `message ${r.message_id}`);
  const all = state.reactions(r.message_id);
  const same = all.filter((x) => x.emoji === r.emoji);
  const mine = same.some((x) => x.by === r.by);
  const unchanged = (status: 'unchanged' | 'limit'): ReactionChangeOutcome => ({ op: 'reaction.change', status, count: same.length });
  if (op.action === 'add') {
    if (mine) return unchanged('unchanged');
    if (same.length === 0 && new Set(all.map((x) => x.emoji)).size >= op.max_distinct) return unchanged('limit');
    put({ op: 'reaction.put', reaction: { ...r, created_at: op.at } });
    put({ op: 'event.append', event: op.event(same.length + 1) });
    return { op: 'reaction.change', status: 'added', count: same.length + 1 };
  }
  if (!mine) return unchanged('unchanged');
  put({ op: 'reaction.delete', message_id: r.message_id, emoji: r.emoji, by: r.by });
  put({ op: 'event.append', event: op.event(same.length - 1) });
  return { op: 'reaction.change', status: 'removed', count: same.length - 1 };
}

/** The reactions a batch's earlier effects changed, laid over the base state. */
export class ReactionOverlay implements ReactionState {
  private changed: Map<string, ReactionRecord[]> | undefined;

  constructor(private readonly base: ReactionState) {}

  note(e: ReactionEffect): void {
    const id = messageOf(e);
    (this.changed ??= new Map()).set(id, afterEffect(this.reactions(id), e));
  }

  reactions(messageId: string): ReactionRecord[] {
    return this.changed?.get(messageId) ?? this.base.reactions(messageId);
  }
}
