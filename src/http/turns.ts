// Bounds how long one event-loop iteration spends starting requests. Node reads every ready socket
// in one poll phase and runs each request up to its first real wait (parse, admission, body, the
// store's write) before the next socket's, so with 50 clients sending at once one iteration ran up
// to 50 requests, 13-28 ms on the 1M store, before any timer, WebSocket frame or the store turn's
// commit could run. A request that arrives once the iteration has spent TURN_BUDGET_MS since it
// started its first waits, in arrival order, for the check phase and, while the budget stays spent,
// for later iterations. The store batches no worse: its transaction stays open until the journal's
// next group commit, however many iterations the group's writes came in (sqlite/engine/turn.ts).
//
// Each waiting request is its own setImmediate callback, not one callback draining a queue: Node
// runs a callback's microtasks and nextTicks (the request's body, its handler, the store's write)
// right after it, so the budget counts each request's whole run, not its first synchronous step.

/** How long one iteration (its poll phase, then its check phase) may spend starting requests. */
export const TURN_BUDGET_MS = 4;

export class RequestTurns {
  /** When the current phase started its first request; undefined until one does. */
  #since: number | undefined;
  #waiting = 0;

  constructor(
    /** Called for each request that could not start at once. */
    private readonly waited: () => void = () => {},
    private readonly budgetMs = TURN_BUDGET_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Requests waiting for a later phase. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Starts `start` now when the phase has budget left and nothing waits before it; else later, in order. */
  run(start: () => void): void {
    if (this.#waiting === 0 && this.#within()) start();
    else {
      this.waited();
      this.#defer(start);
    }
  }

  #within(): boolean {
    const now = this.now();
    if (this.#since === undefined) {
      this.#since = now;
      // Queued before any request this phase defers: the next check phase starts with a fresh budget.
      setImmediate(this.#reset);
      return true;
    }
    return now - this.#since < this.budgetMs;
  }

  readonly #reset = (): void => {
    this.#since = undefined;
  };

  /** A request is deferred only once the phase has started one, so its reset is queued ahead of it. */
  #defer(start: () => void): void {
    this.#waiting++;
    setImmediate(this.#attempt, start);
  }

  readonly #attempt = (start: () => void): void => {
    this.#waiting--;
    if (this.#within()) start();
    else this.#defer(start);
  };
}
