// The SSE replay buffer: the newest `capacity` stored events in memory, found by event id.
//
// Events are kept as their JSON text, not as objects: ten thousand message graphs held in old
// space made every garbage collection trace (and every young collection copy) them, which cost
// more than the rest of a send. A replay (an SSE reconnect, rare) parses what it hands out.
//
// An event that replaces its conversation's one before (`supersedes` names the conversation and
// type; a feature declares such a type: LiveEvent.replacesItsLast) drops the older one's text and
// keeps its place, as the event log drops the older one: a stream that last saw it resumes after it,
// a replay passes over it. A read-marks notice of a broadcast to 10,000 members is a megabyte of
// JSON: kept one per flush, they were most of what an attachment seemed to cost after broadcasts.

import { jsonOf, rememberJson } from '../protocol/json-cache.js';
import type { Message, ServiceEvent } from '../protocol/types.js';
import type { StoredEvent } from '../store/types.js';

export class ReplayBuffer {
  private ids: (string | undefined)[];
  private texts: (string | undefined)[];
  private seqs: number[];
  /** Absolute index of the next push; slot = index % capacity. */
  private next = 0;
  /** Bumped by resize, which renumbers the absolute indexes a paused replay may hold. */
  generation = 0;
  /** The absolute index of the newest event pushed under each key `supersedes` gave. */
  private readonly newestOf = new Map<string, number>();

  constructor(
    private capacity: number,
    /** The key under which an event replaces the one before it (its type and conversation), if it does. */
    private readonly supersedes: (e: ServiceEvent) => string | undefined = () => undefined,
  ) {
    this.capacity = Math.max(0, capacity);
    this.ids = new Array<string | undefined>(this.capacity);
    this.texts = new Array<string | undefined>(this.capacity);
    this.seqs = new Array<number>(this.capacity).fill(0);
  }

  get size(): number {
    return Math.min(this.next, this.capacity);
  }

  push(e: StoredEvent): void {
    if (this.capacity === 0) return;
    const key = this.supersedes(e.event);
    if (key !== undefined) this.replace(key);
    const slot = this.next % this.capacity;
    this.ids[slot] = e.event.id;
    this.texts[slot] = jsonOf(e.event);
    this.seqs[slot] = e.seq;
    this.next++;
  }

  /** Drops the text of the event under `key` before the one about to be pushed. */
  private replace(key: string): void {
    const before = this.newestOf.get(key);
    if (before !== undefined && before >= this.start) this.texts[before % this.capacity] = undefined;
    this.newestOf.set(key, this.next);
    // Keys whose newest event left the buffer are forgotten, a buffer's worth at a time.
    if (this.newestOf.size > this.capacity) for (const [k, i] of this.newestOf) if (i < this.start) this.newestOf.delete(k);
  }

  /** Events newer than the one with `eventId`, oldest first; undefined when it is not buffered. */
  after(eventId: string): StoredEvent[] | undefined {
    const i = this.indexAfter(eventId);
    return i === undefined ? undefined : this.range(i);
  }

  /** Absolute index of the oldest buffered event. */
  get start(): number {
    return this.next - this.size;
  }

  /** Absolute index the next pushed event will get (one past the newest). */
  get end(): number {
    return this.next;
  }

  /** Absolute index of the first event newer than `eventId`; undefined when it is not buffered. */
  indexAfter(eventId: string): number | undefined {
    // Newest first: an id pushed twice counts where it was pushed last.
    for (let i = this.next - 1; i >= this.next - this.size; i--) {
      if (this.ids[i % this.capacity] === eventId) return i + 1;
    }
    return undefined;
  }

  /**
   * The event at absolute index `i`, parsed on demand (a replay that waits for a slow socket holds
   * an index, not a copy of the buffer); null for a replaced event (pass over it);
   * undefined once it was overwritten or before it was pushed.
   */
  at(i: number): StoredEvent | null | undefined {
    if (i < this.start || i >= this.next) return undefined;
    const slot = i % this.capacity;
    return this.texts[slot] === undefined ? null : this.read(slot);
  }

  /** Every buffered event, oldest first. */
  all(): StoredEvent[] {
    return this.range(this.next - this.size);
  }

  /**
   * Shows `tombstone` in place of every buffered copy of the message it stands for (a redaction,
   * #40 part 3): a replay never hands out what was redacted.
   */
  scrub(tombstone: Message): void {
    const needle = `"id":${JSON.stringify(tombstone.id)}`;
    for (let slot = 0; slot < this.size; slot++) {
      const text = this.texts[slot];
      if (text === undefined || !text.includes(needle)) continue;
      const event = JSON.parse(text) as ServiceEvent;
      if (event.message?.id === tombstone.id) this.texts[slot] = JSON.stringify({ ...event, message: tombstone });
    }
  }

  /** Changes the capacity (config reload), keeping the newest events that still fit. */
  resize(capacity: number): void {
    const keep = capacity > 0 ? this.all().slice(-capacity) : [];
    this.capacity = Math.max(0, capacity);
    this.ids = new Array<string | undefined>(this.capacity);
    this.texts = new Array<string | undefined>(this.capacity);
    this.seqs = new Array<number>(this.capacity).fill(0);
    this.next = 0;
    this.newestOf.clear();
    this.generation++;
    for (const e of keep) this.push(e);
  }

  private range(from: number): StoredEvent[] {
    const out: StoredEvent[] = [];
    for (let i = from; i < this.next; i++) {
      const slot = i % this.capacity;
      if (this.texts[slot] !== undefined) out.push(this.read(slot));
    }
    return out;
  }

  private read(slot: number): StoredEvent {
    const text = this.texts[slot]!;
    const event = JSON.parse(text) as ServiceEvent;
    // The text is the event's JSON already: streams send it without serializing again.
    rememberJson(event, text);
    return { seq: this.seqs[slot]!, event };
  }
}
