// The reactions concern in the in-memory backend: records by message, oldest first.

import type { MemoryPart } from '../parts.js';
import { afterEffect, isReactionEffect, messageOf } from './ops.js';
import type { ReactionRecord } from './records.js';

export class MemoryReactions implements MemoryPart {
  private readonly byMessage = new Map<string, ReactionRecord[]>();

  apply(e: { op: string }): boolean {
    if (!isReactionEffect(e)) return false;
    const id = messageOf(e);
    const left = afterEffect(this.byMessage.get(id) ?? [], e);
    if (left.length > 0) this.byMessage.set(id, left);
    else this.byMessage.delete(id);
    return true;
  }

  /** One message's reactions (the stored records: the resolver does not change them). */
  of(messageId: string): ReactionRecord[] {
    return this.byMessage.get(messageId) ?? [];
  }

  /** Copies of these messages' reactions, oldest first. */
  list(messageIds: readonly string[]): ReactionRecord[] {
    const out = messageIds.flatMap((id) => this.byMessage.get(id) ?? []);
    return out.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0)).map((r) => ({ ...r }));
  }
}
