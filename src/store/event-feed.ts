// The event feed every backend offers (Store.feed): stored events in order, and a wake-up for
// readers that read the store themselves.

import type { StoredEvent } from './records.js';

export interface FeedSubscription {
  /** Stops delivery; no call of onEvents follows. */
  close(): void;
}

/**
 * Stored events, in sequence order, with no gap and no duplicate, whoever wrote them. A feed is
 * fed by its backend: the in-process one by this process's writes, a networked one by reading new
 * events by cursor when woken (LISTEN/NOTIFY).
 */
export interface EventFeed {
  /**
   * Delivers every stored event with seq > fromSeq: first the stored backlog (read by cursor), then
   * new events as they are stored, each once, in order, in batches. `onError` hears a failure to
   * read the backlog; the subscription is then closed.
   */
  subscribe(fromSeq: number, onEvents: (events: StoredEvent[]) => void, onError?: (err: Error) => void): FeedSubscription;
  /**
   * Calls `wake` once, when an event with seq > `afterSeq` is stored. An in-process backend calls
   * it as soon as the write is applied, before it is durable (it may yet fail): for a reader that
   * reads the store itself and answers only once a write of its own is durable, which is then
   * durable after everything it read, in the same group commit as the write that woke it (an MCP
   * wait's cursor: docs/agents.md). A networked backend calls it when the feed delivers.
   */
  onWritten(afterSeq: number, wake: () => void, onError?: (err: Error) => void): FeedSubscription;
  /**
   * How many times events already applied were undone (a turn whose journal write failed), after
   * which their seqs are given to other events. A reader that keeps a position past what the feed
   * delivered (it read on an onWritten wake) starts again from a durable one once this moved.
   * Always 0 where reads see only committed events.
   */
  readonly rollbacks: number;
  /** The highest sequence number delivered to subscribers (or known stored at start). */
  readonly head: number;
}
