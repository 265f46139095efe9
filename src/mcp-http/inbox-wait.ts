// One wait_for_messages over the store, as one small object. A wait may stay open five minutes and
// most of that time nothing happens: so no async call stays suspended meanwhile. Each round reads
// after the agent's cursor (read-state.ts, `StoreInbox.pass`); a round with nothing to return
// subscribes to the feed, arms the deadline and ends. An event, the deadline or `stop()` starts
// the next round, or ends the wait. Idle, a wait holds this object, a feed subscription and a timer
// (#38 item 9: docs/security.md keeps the figure).

import type { FeedSubscription, StoredEvent } from '../store/types.js';
import type { Scope } from '../mcp/inbox.js';
import type { Message } from '../protocol/types.js';

export interface WaitOutcome {
  messages: Message[];
  timedOut: boolean;
}

/** What a round of the wait reads through (StoreInbox). */
export interface WaitRounds {
  /** One read after the cursor: what to return, or the seq to wait past when there is nothing yet. */
  pass(scope: Scope, deadline: number, stopped: () => boolean): Promise<WaitOutcome | number>;
  subscribe(seq: number, onEvents: (events: StoredEvent[]) => void, onError: () => void): FeedSubscription;
}

export const CANCELLED = 'wait_for_messages was cancelled';

export class InboxWait {
  #sub: FeedSubscription | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  #settled = false;

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

  readonly #onEvents = (events: StoredEvent[]): void => {
    if (events.length > 0) this.#wake();
  };

  async #round(): Promise<void> {
    try {
      if (this.#stopped) throw new Error(CANCELLED);
      const r = await this.rounds.pass(this.scope, this.deadline, this.#stoppedNow);
      if (this.#stopped) throw new Error(CANCELLED);
      if (typeof r !== 'number') return this.#settle(undefined, r);
      this.#timer = setTimeout(this.#wake, Math.max(0, this.deadline - Date.now()));
      const sub = this.rounds.subscribe(r, this.#onEvents, this.#wake);
      // A feed that delivered at once has already woken the wait (and cleared the timer).
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
