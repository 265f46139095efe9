// The agent's inbox for wait_for_messages: events delivered by the attachment wait here until a call
// consumes them. A call consumes everything that arrived since the previous one and returns the part
// in its scope; consuming acknowledges the events, and the attachment stores the cursor before the
// result goes out, so a restart of `svc mcp` neither repeats nor skips anything.

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Message, ServiceEvent } from '../protocol/types.js';
import { forMe, isOwn, type Self } from './format.js';

/** `mentions`: mentions of this agent and DMs to it. `all`: every message it can read. */
export type Scope = 'mentions' | 'all';

/** One delivered event, as the attachment client hands it over. */
export interface Delivered {
  cursor: string;
  event: ServiceEvent;
  ack(): void;
}

export interface InboxOptions {
  self: Self;
  /** Resolves once every acknowledged cursor is durable. */
  flush: () => Promise<void>;
  /** Why the attachment cannot deliver (refused, closed), if so: waits fail with it. */
  failure?: () => Error | undefined;
}

/**
 * The replay after a (re)attachment is returned whole: while it may still be arriving (CATCH_UP_MS
 * after READY) a wait that has something returns once arrivals have been quiet for QUIET_MS. Live,
 * a wait returns as soon as the frames already read are pushed: a wake costs no quiet window, and
 * what arrives while the agent works on it comes whole with its next call.
 */
const QUIET_MS = 150;
const CATCH_UP_MS = 1000;

/** Unreturned events kept at most; beyond, the oldest traffic that is no mention or DM is dropped. */
export const BUFFER_MAX = 5000;

/**
 * The message an event brings to the inbox: a new message, or an edit that newly mentions this
 * agent (the one time an edit wakes it: `mentions_added`). Other edits and deletes change messages
 * the agent has had already; read_messages shows them as they are now.
 */
export function arrived(e: ServiceEvent, self: Pick<Self, 'fqid'>): Message | undefined {
  if (e.type === 'message.created') return e.message;
  if (e.type === 'message.edited' && e.mentions_added?.includes(self.fqid)) return e.message;
  return undefined;
}

const inScope = (m: Message, self: Self, scope: Scope): boolean => !isOwn(m, self) && (scope === 'all' || forMe(m, self) !== null);

export class Inbox {
  #buffer: Delivered[] = [];
  #seen = new Set<string>();
  #wakeWaiters = new Set<() => void>();
  #listeners = new Set<(m: Message) => void>();
  #lock: Promise<unknown> = Promise.resolve();
  #lastArrival = 0;
  #catchUpUntil = 0;

  constructor(private readonly o: InboxOptions) {}

  /** The attachment's onEvent: keeps the event until a wait consumes it. */
  push(d: Delivered): void {
    // A reconnect may deliver an unacknowledged event again.
    if (this.#seen.has(d.cursor)) return;
    this.#seen.add(d.cursor);
    this.#buffer.push(d);
    this.#lastArrival = Date.now();
    if (this.#buffer.length > BUFFER_MAX) this.#shed();
    const m = arrived(d.event, this.o.self);
    if (m && forMe(m, this.o.self) !== null) for (const l of this.#listeners) l(m);
    this.#wake();
  }

  /** Calls `fn` for each arriving mention of, or DM to, this agent; returns the unsubscribe. */
  onArrival(fn: (m: Message) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  /** Messages in scope waiting for the next wait_for_messages call (nothing is consumed). */
  pending(scope: Scope): Message[] {
    return this.#matching(scope);
  }

  /** The attachment is READY: what it delivers next may be a replay of what the agent missed. */
  attached(): void {
    this.#catchUpUntil = Date.now() + CATCH_UP_MS;
  }

  /** Wakes pending waits, e.g. when the attachment fails. */
  interrupt(): void {
    this.#wake();
  }

  /**
   * Returns at once what arrived since the last call, when any of it is in scope; else waits for
   * something in scope until `timeoutMs`. Calls run one at a time. An aborted call consumes nothing.
   */
  wait(scope: Scope, timeoutMs: number, signal?: AbortSignal): Promise<{ messages: Message[]; timedOut: boolean }> {
    const run = this.#lock.then(() => this.#wait(scope, timeoutMs, signal));
    this.#lock = run.catch(() => undefined);
    return run;
  }

  async #wait(scope: Scope, timeoutMs: number, signal?: AbortSignal): Promise<{ messages: Message[]; timedOut: boolean }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (signal?.aborted) throw new Error('wait_for_messages was cancelled');
      const failure = this.o.failure?.();
      if (failure) throw failure;
      if (this.#matching(scope).length > 0) {
        await this.#settle(signal);
        if (signal?.aborted) throw new Error('wait_for_messages was cancelled');
        return { messages: await this.#consume(scope), timedOut: false };
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        // Out-of-scope traffic that arrived meanwhile is consumed too: the next call starts from now.
        await this.#consume(scope);
        return { messages: [], timedOut: true };
      }
      await this.#nextArrival(left, signal);
    }
  }

  async #settle(signal?: AbortSignal): Promise<void> {
    // Frames the socket has already read are pushed before the wait takes the buffer.
    await nextTurn();
    for (;;) {
      const quiet = Date.now() - this.#lastArrival;
      const until = this.#catchUpUntil;
      if (quiet >= QUIET_MS || Date.now() >= until || signal?.aborted) return;
      await this.#nextArrival(Math.min(QUIET_MS - quiet, until - Date.now()), signal);
    }
  }

  #matching(scope: Scope): Message[] {
    const out: Message[] = [];
    for (const d of this.#buffer) {
      const m = arrived(d.event, this.o.self);
      if (m && inScope(m, this.o.self, scope)) out.push(m);
    }
    return out;
  }

  /** Takes everything buffered, acknowledges it and waits until the cursor is durable. */
  async #consume(scope: Scope): Promise<Message[]> {
    const taken = this.#buffer;
    this.#buffer = [];
    const messages: Message[] = [];
    for (const d of taken) {
      const m = arrived(d.event, this.o.self);
      if (m && inScope(m, this.o.self, scope)) messages.push(m);
      d.ack();
      this.#seen.delete(d.cursor);
    }
    await this.o.flush();
    return messages;
  }

  /** Keeps memory bounded for an agent that never waits: room traffic goes first, mentions and DMs stay. */
  #shed(): void {
    const i = this.#buffer.findIndex((d) => {
      const m = arrived(d.event, this.o.self);
      return !m || forMe(m, this.o.self) === null;
    });
    if (i < 0) return;
    const [d] = this.#buffer.splice(i, 1);
    d!.ack();
    this.#seen.delete(d!.cursor);
  }

  #wake(): void {
    const waiters = [...this.#wakeWaiters];
    this.#wakeWaiters.clear();
    for (const w of waiters) w();
  }

  #nextArrival(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.#wakeWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      this.#wakeWaiters.add(done);
    });
  }
}
