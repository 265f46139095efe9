// The reactions concern in the in-memory backend: records by message, oldest first.

import type { MemoryAdapter } from '../part.js';
import type { ReactionState } from './decide.js';
import { afterEffect, messageOf, type ReactionEffect } from './ops.js';
import type { ReactionReads, ReactionRecord } from './records.js';

export class MemoryReactions implements MemoryAdapter<ReactionEffect, ReactionState, ReactionReads> {
  private readonly byMessage = new Map<string, ReactionRecord[]>();

  apply(e: ReactionEffect): void {
    const id = messageOf(e);
    const left = afterEffect(this.byMessage.get(id) ?? [], e);
    if (left.length > 0) this.byMessage.set(id, left);
    else this.byMessage.delete(id);
  }

  forget(messageId: string): void {
    this.byMessage.delete(messageId);
  }

  // The stored records: the resolver does not change them.
  readonly state: ReactionState = { reactions: (id) => this.byMessage.get(id) ?? [] };

  readonly reads: ReactionReads = {
    list: async (messageIds) => {
      const out = messageIds.flatMap((id) => this.byMessage.get(id) ?? []);
      return out.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0)).map((r) => ({ ...r }));
    },
  };
}
