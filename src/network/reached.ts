// What reached whom. The surfaces that hand messages over know it: an agent's attachment (the
// message events it sent, and the runtime's ACKs), an agent's own SSE stream (the live events it
// wrote), an MCP wait (the messages it returned), a history read (the page, and whom it counts
// for). They tell `ctx.extensions.reached`; the features that keep track of it observe it
// (`Feature.reached`: delivered and read marks, per-agent delivery state) and the app joins their
// observers into that one value. With no such feature in the list, nothing is kept.

import { mayAssertAgent, type Principal } from '../auth/principal.js';
import { canSendHuman } from '../auth/senders.js';
import type { Message, Reader, Target } from '../protocol/types.js';
import type { StoredEvent } from '../store/types.js';

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

/** What one feature observes of what reached whom; it leaves out what it has no use for. */
export interface ReachObserver {
  /**
   * Follows an agent's attachment that delivers after cursor `start` (called once, on its first
   * message event); undefined to pass.
   */
  attachment?: (agentId: string, start: number) => AttachmentDeliveries | undefined;
  /**
   * Follows an agent's own SSE stream, whose live part starts after `from` (unknown for a resumed
   * stream until its first live event); undefined to pass.
   */
  stream?: (agentId: string, from: number | undefined) => StreamDeliveries | undefined;
  /** An MCP wait handed message `m` (event seq `seq`) to the agent: it has it. */
  handedOver?: (agentId: string, m: Message, seq: number) => void;
  /** A page of one conversation's history (maybe empty) was read by `reader`. */
  pageRead?: (reader: Reader, messages: readonly Message[]) => void;
}

/** Every feature's observer joined: what the surfaces tell. */
export type Reached = Required<ReachObserver>;

/**
 * The followers of several observers as one (undefined for none, the one itself for one). With
 * fewer than two observers it is the observer's own function: asked again on each message event
 * while it passes (its feature may start following after a config reload).
 */
function joined<A extends unknown[], T>(fs: ((...a: A) => T | undefined)[], join: (xs: T[]) => T): (...a: A) => T | undefined {
  if (fs.length <= 1) return fs[0] ?? (() => undefined);
  return (...a) => {
    const xs = fs.map((f) => f(...a)).filter((x): x is T => x !== undefined);
    return xs.length <= 1 ? xs[0] : join(xs);
  };
}

/** The observers as one value, calling each in feature order. */
export function reachedBy(observers: readonly ReachObserver[]): Reached {
  const of = <K extends keyof ReachObserver>(k: K): Reached[K][] => observers.flatMap((o) => (o[k] ? [o[k] as Reached[K]] : []));
  const attachments = of('attachment');
  const streams = of('stream');
  const handed = of('handedOver');
  const reads = of('pageRead');
  return {
    attachment: joined(attachments, (xs) => ({
      joinedRoom: (roomId, seq) => xs.forEach((x) => x.joinedRoom(roomId, seq)),
      sent: (seq, target) => xs.forEach((x) => x.sent(seq, target)),
      ackUpTo: (cursor) => xs.forEach((x) => x.ackUpTo(cursor)),
    })),
    stream: joined(streams, (xs) => ({ sent: (e) => xs.forEach((x) => x.sent(e)), written: (err) => xs.forEach((x) => x.written(err)) })),
    handedOver: (agentId, m, seq) => handed.forEach((f) => f(agentId, m, seq)),
    pageRead: (reader, messages) => reads.forEach((f) => f(reader, messages)),
  };
}

/**
 * Whom a read by `p` counts for: its own agent for an agent token, else the one named by `as`
 * (`<agent id>` or `human:<id>`) when `p` may act as them; undefined when nobody. An agent token
 * naming another agent reads as nobody.
 */
export function readingAs(p: Principal, as: string | undefined, humanIngress: boolean): Reader | undefined {
  if (p.kind === 'agent') return as === undefined || as === p.agentId ? { type: 'agent', id: p.agentId } : undefined;
  if (as === undefined || as === '' || p.kind === 'anonymous') return undefined;
  if (as.startsWith('human:')) {
    const id = as.slice('human:'.length);
    return id !== '' && canSendHuman(humanIngress, p) ? { type: 'human', id } : undefined;
  }
  return mayAssertAgent(p, as) ? { type: 'agent', id: as } : undefined;
}
