// The inbox and read markers of `/v1/mcp`, kept in the store per agent (AgentReadState): the wait
// cursor is the last event sequence number wait_for_messages consumed. A wait reads the stored
// events after it, keeps the messages this agent's attachment would receive, and moves the cursor
// with a compare-and-set write, so two instances (or two calls) never both return one message; a
// call that loses the race reads again from the new cursor. Nothing lives in the process: any
// instance answers any call, and a restart forgets nothing.

import { StoreError, type AgentReadState, type FeedSubscription, type Store, type StoredEvent } from '../store/types.js';
import { ALL_CAPABILITIES, attachmentWants, batchReads, resolveAudience } from '../live/visibility.js';
import { forMe, isOwn, type Self } from '../mcp/format.js';
import { arrived, type Scope } from '../mcp/inbox.js';
import type { Marker, Markers } from '../mcp/read-markers.js';
import type { InboxPort } from '../mcp/session.js';
import type { Message } from '../protocol/types.js';
import { CANCELLED, InboxWait, type ReadMark, type WaitOutcome } from './inbox-wait.js';

/** Events read per store query while scanning after the cursor. */
const PAGE = 500;
/** Messages one wait returns at most; the rest wait for the next call. */
export const WAIT_RETURN_MAX = 200;

/** The read state of an agent seen for the first time: nothing before now is unread or waiting. */
async function initialState(store: Store): Promise<AgentReadState> {
  return { cursor: await store.lastEventSeq(), since: new Date().toISOString(), read: {} };
}

/** The agent's read state, created (from now) when it has none yet. */
export async function ensureReadState(store: Store, agentId: string): Promise<AgentReadState> {
  const had = await store.getAgentReadState(agentId);
  if (had) return had;
  const r = await store.write([{ op: 'agent.read_state', agent_id: agentId, init: await initialState(store) }]);
  const o = r.outcomes[0];
  return o?.op === 'agent.read_state' ? o.state : await initialState(store);
}

/** Read markers in the agent's read state; `advance` writes through at once. */
export class StoreMarkers implements Markers {
  #state: AgentReadState;

  constructor(
    private readonly store: Store,
    private readonly agentId: string,
    state: AgentReadState,
  ) {
    this.#state = state;
  }

  get since(): string {
    return this.#state.since;
  }

  get(key: string): Marker | undefined {
    return this.#state.read[key];
  }

  async advance(key: string, m: Marker): Promise<void> {
    const cur = this.#state.read[key];
    if (cur && (cur.at > m.at || cur.id === m.id)) return;
    const r = await this.store.write([{ op: 'agent.read_state', agent_id: this.agentId, init: this.#state, read: { [key]: m } }]);
    const o = r.outcomes[0];
    if (o?.op === 'agent.read_state') this.#state = o.state;
  }
}

/**
 * The read markers a wait marks its DMs read with: it reads the agent's read state when it is
 * first asked to advance (most waits never are), so an open wait holds no copy of it.
 */
export class LazyStoreMarkers implements Pick<Markers, 'advance'> {
  #markers: StoreMarkers | undefined;

  constructor(
    private readonly store: Store,
    private readonly agentId: string,
  ) {}

  async advance(key: string, m: Marker): Promise<void> {
    this.#markers ??= new StoreMarkers(this.store, this.agentId, await ensureReadState(this.store, this.agentId));
    await this.#markers.advance(key, m);
  }
}

interface Scan {
  messages: Message[];
  /** The event seq of each message, in the same order. */
  seqs: number[];
  /** The sequence number the scan reached (the cursor to store when these are returned). */
  upTo: number;
}

const inScope = (m: Message, self: Self, scope: Scope): boolean => !isOwn(m, self) && (scope === 'all' || forMe(m, self) !== null);

/** The wait_for_messages inbox over the store. */
export class StoreInbox implements InboxPort {
  constructor(
    private readonly store: Store,
    private readonly self: Self,
    /** Told of each message a wait handed over (the agent has it). */
    private readonly handedOver: (message: Message, seq: number) => void = () => {},
  ) {}

  async pending(scope: Scope): Promise<Message[]> {
    const st = await ensureReadState(this.store, this.self.agent_id);
    return (await this.#scan(st.cursor, scope)).messages;
  }

  wait(scope: Scope, timeoutMs: number, signal?: AbortSignal): Promise<WaitOutcome> {
    return new Promise((resolve, reject) => {
      const w = new InboxWait(this, scope, Date.now() + timeoutMs, (err, r) => (err ? reject(err) : resolve(r!)));
      signal?.addEventListener('abort', () => w.stop(), { once: true });
      w.start();
      if (signal?.aborted) w.stop();
    });
  }

  /**
   * One round of a wait (inbox-wait.ts): what to return now, or where its read ended. A call that
   * is stopped meanwhile consumes nothing.
   */
  async pass(scope: Scope, deadline: number, stopped: () => boolean, mark?: ReadMark): Promise<WaitOutcome | ReadMark> {
    for (;;) {
      // Only the cursor is kept across the wait, not the read state it came in.
      const cursor = (await ensureReadState(this.store, this.self.agent_id)).cursor;
      const rollbacks = this.store.feed.rollbacks;
      // Everything stored after the cursor comes at once: what arrived while the agent worked on
      // its last answer is one burst. A wait woken by an arrival returns it without a quiet window.
      // What the last round read held nothing to return, unless another call moved the cursor or
      // events it read were undone.
      const scan = await this.#scan(mark?.cursor === cursor && mark.rollbacks === rollbacks ? mark.upTo : cursor, scope);
      if (scan.messages.length > 0) {
        if (stopped()) throw new Error(CANCELLED);
        if (await this.#consume(cursor, scan.upTo)) {
          scan.messages.forEach((m, i) => this.handedOver(m, scan.seqs[i]!));
          return { messages: scan.messages, timedOut: false };
        }
        continue; // another call consumed them first: read again from where it left the cursor
      }
      if (Date.now() >= deadline) {
        // Traffic out of scope is passed over too: the next call starts from here.
        if (scan.upTo > cursor) await this.#consume(cursor, scan.upTo);
        return { messages: [], timedOut: true };
      }
      return { cursor, upTo: scan.upTo, rollbacks };
    }
  }

  /**
   * Calls `wake` once an event is stored after `seq` (on any instance); `onError` when the feed
   * fails. On sqlite that is as soon as the send is applied: the round reads it, and its cursor
   * write joins the send's group commit, so the answer goes out with the send's (EventFeed.onWritten).
   */
  wakeAfter(seq: number, wake: () => void, onError: () => void): FeedSubscription {
    return this.store.feed.onWritten(seq, wake, onError);
  }

  /**
   * Calls `fn` for each mention of, or DM to, this agent stored after `seq` (on any instance),
   * consuming nothing: the source of a 2026-07-28 client's `subscriptions/listen` stream.
   */
  watch(seq: number, fn: (m: Message) => void, onError: () => void): FeedSubscription {
    let chain = Promise.resolve();
    return this.store.feed.subscribe(
      seq,
      (events) => {
        chain = chain
          .then(async () => {
            const reads = batchReads(this.store, events);
            for (const e of events) if (await this.#wants(reads, this.self.network_id, e, 'mentions')) fn(e.event.message!);
          })
          .catch(onError);
      },
      onError,
    );
  }

  /** Moves the cursor from `from` to `to`; false when it was no longer at `from`. */
  async #consume(from: number, to: number): Promise<boolean> {
    if (to === from) return true;
    const init: AgentReadState = { cursor: from, since: new Date().toISOString(), read: {} };
    try {
      await this.store.write([{ op: 'agent.read_state', agent_id: this.self.agent_id, init, expect_cursor: from, cursor: to }]);
      return true;
    } catch (err) {
      if (err instanceof StoreError && err.code === 'conflict') return false;
      throw err;
    }
  }

  /** Messages in scope after `cursor` that this agent's attachment would receive, up to WAIT_RETURN_MAX. */
  async #scan(cursor: number, scope: Scope): Promise<Scan> {
    const net = this.self.network_id;
    const out: Message[] = [];
    const seqs: number[] = [];
    let upTo = cursor;
    for (;;) {
      const events = await this.store.eventsAfter(upTo, PAGE);
      if (events.length === 0) return { messages: out, seqs, upTo };
      const reads = batchReads(this.store, events);
      for (const e of events) {
        if (await this.#wants(reads, net, e, scope)) {
          if (out.length >= WAIT_RETURN_MAX) return { messages: out, seqs, upTo };
          out.push(e.event.message!);
          seqs.push(e.seq);
        }
        upTo = e.seq;
      }
      if (events.length < PAGE) return { messages: out, seqs, upTo };
    }
  }

  async #wants(reads: Store, net: string, e: StoredEvent, scope: Scope): Promise<boolean> {
    const m = arrived(e.event, this.self);
    if (!m || !inScope(m, this.self, scope)) return false;
    return attachmentWants(await resolveAudience(reads, net, e.event), e.event, this.self.agent_id, ALL_CAPABILITIES, net);
  }
}
