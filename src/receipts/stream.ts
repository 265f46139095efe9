// An agent's own event stream as its receipt: SSE has no acknowledgement, so a live message event
// counts as received once its frame is written to the agent's socket (handed to the kernel).
// Streams of other credentials (operators, the console) mark nothing (src/live/sse.ts asks for
// none). The stream has no gap from where its live part began, so each write extends one range per
// conversation.

import type { StreamDeliveries } from '../network/reached.js';
import type { Target } from '../protocol/types.js';
import { convKeyOf, type StoredEvent } from '../store/types.js';
import type { ReceiptMarks } from './marks.js';

export class StreamReceipts implements StreamDeliveries {
  private readonly pending = new Map<string, { hi: number; target: Target }>();

  constructor(
    private readonly marks: ReceiptMarks,
    private readonly agentId: string,
    /** The seq the live stream starts after; unknown for a resumed stream until its first live event. */
    private from: number | undefined,
  ) {}

  /** A live event is in the chunk being written. */
  sent(e: StoredEvent): void {
    this.from ??= e.seq - 1;
    const m = e.event.type === 'message.created' ? e.event.message : undefined;
    if (m) this.pending.set(convKeyOf(m.target), { hi: e.seq, target: m.target });
  }

  /** The write callback of a chunk: its messages reached the socket. */
  readonly written = (err?: Error | null): void => {
    if (err || this.pending.size === 0 || this.from === undefined) return;
    for (const [conv, { hi, target }] of this.pending)
      this.marks.mark(`agent:${this.agentId}`, conv, 'delivered', this.from + 1, hi, target);
    this.pending.clear();
  };
}
