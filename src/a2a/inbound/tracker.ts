// Which svc events move an A2A task on: its message's wake acknowledged (agent.wake.delivered:
// working), the wake refused or given up on (agent.wake.failed: failed) and the agent's next
// message in the task's conversation (message.created: completed). Every instance sees every
// stored event (the feed), so the instance holding a task's stream follows it wherever the agent
// is attached. Pure bookkeeping over the events the feature observes; no SDK, no I/O.

import type { Message, Target } from '../../protocol/types.js';
import type { StoredEvent } from '../../store/types.js';

/** A task's conversation, as its messages' targets name it. */
export type Conv = { kind: 'dm'; dm_id: string } | { kind: 'thread'; room_id: string; thread_id: string };

export interface Watch {
  agent: string;
  conv: Conv;
  /** The message the task sent (set once stored): its wake's events are matched by it. */
  messageId?: string;
  working(): void;
  replied(m: Message): void;
  failed(why: string): void;
}

/** An attachment that closes before its ACK is not a refusal: the wake is sent again when the agent attaches. */
const REDELIVERED = /^the attachment closed before acknowledging/;

export function convOf(t: Target): Conv | undefined {
  if (t.kind === 'dm') return { kind: 'dm', dm_id: t.dm_id };
  if (t.kind === 'thread') return { kind: 'thread', room_id: t.room_id, thread_id: t.thread_id };
  return undefined;
}

const sameConv = (a: Conv, t: Target): boolean =>
  a.kind === 'dm' ? t.kind === 'dm' && t.dm_id === a.dm_id : t.kind === 'thread' && t.room_id === a.room_id && t.thread_id === a.thread_id;

export class TaskTracker {
  /** Watches in the order they began: a reply answers the oldest waiting in its conversation. */
  private readonly watches = new Set<Watch>();
  /** The tracker that adopted this one's watches (resume.ts): an end unwatches there. */
  private adopter: TaskTracker | undefined;

  constructor(private readonly network: () => string) {}

  /** Follows a task until `end` is called (its terminal state, or its stream's end). */
  watch(w: Watch): () => void {
    this.watches.add(w);
    return () => {
      this.watches.delete(w);
      this.adopter?.watches.delete(w);
    };
  }

  /**
   * Takes over `other`'s watches, ahead of this one's: tasks resumed at start (caught up on the
   * stored events by `other`) are older than any begun here since, and replies match oldest first.
   */
  adopt(other: TaskTracker): void {
    const all = [...other.watches, ...this.watches];
    this.watches.clear();
    for (const w of all) this.watches.add(w);
    other.watches.clear();
    other.adopter = this;
  }

  get size(): number {
    return this.watches.size;
  }

  observe(se: StoredEvent): void {
    if (this.watches.size === 0) return;
    const e = se.event;
    switch (e.type) {
      case 'agent.wake.delivered':
      case 'agent.wake.failed': {
        const a = e.agent;
        if (!a?.message_id || a.network_id !== this.network()) return;
        for (const w of this.watches) {
          if (w.agent !== a.agent_id || w.messageId !== a.message_id) continue;
          if (e.type === 'agent.wake.delivered') w.working();
          else if (!REDELIVERED.test(a.error ?? '')) w.failed(a.error ?? 'the wake was not delivered');
        }
        return;
      }
      case 'message.created': {
        const m = e.message;
        if (m?.from.type !== 'agent' || m.from.network_id !== this.network()) return;
        for (const w of this.watches) {
          // The task's own message is not its reply; nothing is, until that message is stored.
          if (w.agent !== m.from.id || w.messageId === undefined || m.id === w.messageId || !sameConv(w.conv, m.target)) continue;
          this.watches.delete(w);
          w.replied(m);
          return;
        }
        return;
      }
      default:
        return;
    }
  }
}
