// What an attachment's ACKs say about delivery (src/receipts/): the message events it was sent,
// in order, until the runtime acknowledges them. The attachment's feed has no gap from its start
// cursor, so an ACK covers every message of each conversation it was sent from that start on (or
// from when the agent joined the room, when that happened during the attachment): one range per
// conversation, extended by each ACK, not one mark per message.

import type { NetworkContext } from '../../network/context.js';
import type { Target } from '../../protocol/types.js';
import { convKeyOf } from '../../store/types.js';
import { receiptWriter } from '../../receipts/writer.js';

/** Most unacknowledged message events remembered; older ones are still covered by a later ACK in their conversation. */
const MAX_UNACKED = 4096;

export class DeliveryLedger {
  private readonly seqs: number[] = [];
  private readonly convs: string[] = [];
  private head = 0;
  /** The room of each conversation sent (none for a DM). */
  private readonly roomOf = new Map<string, string | undefined>();
  /** Rooms the agent was added to during this attachment, with the seq of that change. */
  private readonly joined = new Map<string, number>();

  constructor(
    private readonly ctx: NetworkContext,
    private readonly agentId: string,
    /** The cursor the attachment started after. */
    private readonly start: number,
  ) {}

  /** The agent was added to a room at `seq`: its earlier messages were never sent to this attachment. */
  joinedRoom(roomId: string, seq: number): void {
    this.joined.set(roomId, seq);
  }

  /** A message event was sent to the runtime. */
  sent(seq: number, target: Target): void {
    const conv = convKeyOf(target);
    if (!this.roomOf.has(conv)) this.roomOf.set(conv, target.kind === 'dm' ? undefined : target.room_id);
    this.seqs.push(seq);
    this.convs.push(conv);
    if (this.seqs.length - this.head > MAX_UNACKED) this.head++;
    if (this.head > 1024 && this.head * 2 > this.seqs.length) this.compact();
  }

  /** The runtime acknowledged everything up to `cursor`: those messages are delivered. */
  ackUpTo(cursor: number): void {
    const upTo = new Map<string, number>();
    while (this.head < this.seqs.length && this.seqs[this.head]! <= cursor) {
      upTo.set(this.convs[this.head]!, this.seqs[this.head]!);
      this.head++;
    }
    if (this.head === this.seqs.length) this.compact();
    const w = receiptWriter(this.ctx);
    for (const [conv, hi] of upTo) {
      const room = this.roomOf.get(conv);
      const joined = room === undefined ? undefined : this.joined.get(room);
      w.mark(`agent:${this.agentId}`, conv, 'delivered', Math.max(this.start, joined ?? 0) + 1, hi);
    }
  }

  private compact(): void {
    this.seqs.splice(0, this.head);
    this.convs.splice(0, this.head);
    this.head = 0;
  }
}
