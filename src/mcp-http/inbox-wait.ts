// One wait_for_messages over the store, as one small object. A wait may stay open five minutes and
// most of that time nothing happens: so no async call stays suspended meanwhile. Each round reads
// after the agent's cursor (read-state.ts, `StoreInbox.pass`); a round with nothing to return
// asks the feed to wake it, arms the deadline and ends. An event, the deadline or `stop()` starts
// the next round, or ends the wait. Idle, a wait holds this object, a feed subscription, a timer
// and where its last round's read ended (#38 item 9: docs/security.md keeps the figure).
//
// Every event of the network wakes a round, most of them out of the wait's scope, and the cursor
// moves only when a wait returns: so a round goes on from where the last one's read ended while
// the cursor is still where that read began, or a wait on a busy network would read everything
// since it opened on every event (quadratic in the traffic of the wait).

import type { FeedSubscription } from '../store/types.js';
import type { Scope } from '../mcp/inbox.js';
import type { Message } from '../protocol/types.js';

export interface WaitOutcome {
  messages: Message[];
  timedOut: boolean;
}

/**
 * Where a round's read ended with nothing to return: `upTo`, reading from `cursor`, with the
 * feed's `rollbacks` then (what it read may have been undone since: EventFeed.rollbacks).
 */
export interface ReadMark {
  cursor: number;
  upTo: number;
  rollbacks: number;
}

/** What a round of the wait reads through (StoreInbox). */
export interface WaitRounds {
  /**
   * One read after the cursor (after `mark.upTo` while the cursor is `mark.cursor`): what to
   * return, or where the read ended when there is nothing yet (the seq to wait past).
   */
  pass(scope: Scope, deadline: number, stopped: () => boolean, mark: ReadMark | undefined): Promise<WaitOutcome | ReadMark>;
  /** Calls `wake` once an event is stored after `seq`, `onError` when the feed fails. */
  wakeAfter(seq: number, wake: () => void, onError: () => void): FeedSubscription;
}

export const CANCELLED = 'wait_for_messages was cancelled';

export class InboxWait {
  #sub: FeedSubscription | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #settled = false;
  #mark: ReadMark | undefined;

  constructor(
    private readonly rounds: WaitRounds,
    private readonly scope: Scope,
    /** When the wait answers "nothing new" (ms since the epoch). */
    private readonly deadline: number,
    /** Called once: the outcome, or the error that ended the wait (CANCELLED after stop()). */
    private readonly done: (err: Error | undefined, outcome?: WaitOutcome) => void,
  ) {}

  start(): this {
    void this.#round();
    return this;
  }

  /** Ends the wait without consuming anything (the client went away or cancelled the call). */
  stop(): void {
    if (this.#settled || this.#stopped) return;
    this.#stopped = true;
    // Idle: nothing else would notice. In a round, the round ends it at its next step.
    if (this.#sub || this.#timer) {
      this.#unsubscribe();
      this.#settle(new Error(CANCELLED));
    }
  }

  readonly #stoppedNow = (): boolean => this.#stopped;

  readonly #wake = (): void => {
    if (this.#settled || !(this.#sub || this.#timer)) return;
    this.#unsubscribe();
    void this.#round();
  };

  async #round(): Promise<void> {
    try {
      if (this.#stopped) throw new Error(CANCELLED);
      const r = await this.rounds.pass(this.scope, this.deadline, this.#stoppedNow, this.#mark);
      if (this.#stopped) throw new Error(CANCELLED);
      if ('messages' in r) return this.#settle(undefined, r);
      this.#mark = r;
      this.#timer = setTimeout(this.#wake, Math.max(0, this.deadline - Date.now()));
      const sub = this.rounds.wakeAfter(r.upTo, this.#wake, this.#wake);
      // A feed that woke the wait at once has already cleared the timer.
      if (this.#timer === undefined) sub.close();
      else this.#sub = sub;
    } catch (err) {
      this.#settle(err instanceof Error ? err : new Error(String(err)));
    }
  }

  #unsubscribe(): void {
    this.#sub?.close();
    clearTimeout(this.#timer);
    this.#sub = undefined;
    this.#timer = undefined;
  }

  #settle(err: Error | undefined, outcome?: WaitOutcome): void {
    if (this.#settled) return;
    this.#settled = true;
    this.done(err, outcome);
  }
}
