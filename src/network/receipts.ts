// Receipts as the rest of the server reaches them: through what the receipts feature registers
// (src/receipts/feature.ts puts a `Receipts` in the network's extensions). Without that feature in
// the list `ctx.extensions.receipts` is absent: attachments, SSE streams, MCP waits and history
// reads then mark nothing, and the feature's routes are not served. What they tell is what
// reached whom; how that becomes marks is the feature's own (src/receipts/).

import type { Principal } from '../auth/principal.js';
import type { Message, ReceiptReader, Target } from '../protocol/types.js';
import type { StoredEvent } from '../store/types.js';

/** One reader's receipt of a message (GET /v1/messages/{id}/receipts). */
export interface Receipt {
  reader: ReceiptReader;
  state: 'pending' | 'delivered' | 'read';
  delivered_at?: string;
  read_at?: string;
}

/** What an agent's attachment tells: the message events it sent, and what the runtime acknowledged. */
export interface AttachmentDeliveries {
  /** The agent was added to a room at `seq`: its earlier messages were never sent to this attachment. */
  joinedRoom(roomId: string, seq: number): void;
  /** A message event was sent to the runtime. */
  sent(seq: number, target: Target): void;
  /** The runtime acknowledged everything up to `cursor`. */
  ackUpTo(cursor: number): void;
}

/** What an agent's own event stream tells: the live events of a chunk, then that the chunk was written. */
export interface StreamDeliveries {
  /** A live event is in the chunk being written. */
  sent(e: StoredEvent): void;
  /** The write callback of a chunk. */
  readonly written: (err?: Error | null) => void;
}

/** What the receipts feature offers the rest of the server. */
export interface Receipts {
  /**
   * The deliveries of an agent's attachment that started after cursor `start`; undefined when
   * receipts are not recorded (`server.receipts: false`).
   */
  attachment(agentId: string, start: number): AttachmentDeliveries | undefined;
  /**
   * The deliveries of an agent's own SSE stream, whose live part starts after `from` (unknown for a
   * resumed stream until its first live event); undefined when receipts are not recorded.
   */
  stream(agentId: string, from: number | undefined): StreamDeliveries | undefined;
  /** An MCP wait handed message `m` (event seq `seq`) to the agent: it has it. */
  handedOver(agentId: string, m: Message, seq: number): void;
  /** A page of one conversation's history was read by `p` (as whom `as` names): marked read, in the background. */
  pageRead(p: Principal, as: string | null, messages: readonly Message[]): void;
  /** A message's receipts, for its sender and admins (what GET /v1/messages/{id}/receipts answers). */
  ofMessage(p: Principal, id: string): Promise<{ message_id: string; receipts: Receipt[] }>;
}
