// Tentative reads of the Postgres backend: the rooms and agents that writes decide on are kept
// between requests with their row version (`xmin`), so a stream of messages into one room from one
// sender reads neither again; the write checks the versions as it commits (the `basis` guard of
// append-sql.ts and write.ts, basis.ts) and writes nothing when another instance, or this one,
// changed a record meanwhile: PostgresStore.decide then decides again on fresh reads. Room and agent events on the feed forget entries before
// that happens, as a rule; correctness never waits on them.

import type { AgentRecord, RoomRecord, StoredEvent } from '../types.js';
import type { Basis } from './basis.js';
import type { Versioned } from './lookups.js';

/** A kept record (undefined: not stored) with the version it was read at. */
export interface Tentative<T> {
  record: T | undefined;
  basis: Basis;
}

/** Entries kept per kind; past it they are dropped all at once (the few rooms and senders that matter come back). */
const MAX_ENTRIES = 1000;

class Kept<T> {
  private entries = new Map<string, Promise<Tentative<T>>>();

  constructor(
    private readonly kind: Basis['kind'],
    private readonly read: (id: string) => Promise<Versioned<T> | undefined>,
  ) {}

  get(id: string): Promise<Tentative<T>> {
    const kept = this.entries.get(id);
    if (kept) return kept;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    // Requests that ask while the read is under way share it.
    const entry = this.read(id).then((f) => ({ record: f?.record, basis: { kind: this.kind, id, version: f?.version ?? null } }));
    entry.catch(() => this.forget(id, entry));
    this.entries.set(id, entry);
    return entry;
  }

  /** Forgets `id` (only the entry `only`, when given: a newer one stays). */
  forget(id: string, only?: Promise<Tentative<T>>): void {
    if (only === undefined || this.entries.get(id) === only) this.entries.delete(id);
  }

  clear(): void {
    this.entries.clear();
  }
}

export class TentativeCache {
  private readonly rooms: Kept<RoomRecord>;
  private readonly agents: Kept<AgentRecord>;

  constructor(read: {
    room: (id: string) => Promise<Versioned<RoomRecord> | undefined>;
    agent: (id: string) => Promise<Versioned<AgentRecord> | undefined>;
  }) {
    this.rooms = new Kept('room', read.room);
    this.agents = new Kept('agent', read.agent);
  }

  room(id: string): Promise<Tentative<RoomRecord>> {
    return this.rooms.get(id);
  }

  agent(id: string): Promise<Tentative<AgentRecord>> {
    return this.agents.get(id);
  }

  /** The next reads of these records read the database. */
  forget(basis: readonly Basis[]): void {
    for (const b of basis) (b.kind === 'room' ? this.rooms : this.agents).forget(b.id);
  }

  /** Feed events that announce a change of a room or an agent (rare) drop every entry of that kind. */
  seen(events: readonly StoredEvent[]): void {
    for (const { event } of events) {
      if (event.type.startsWith('room.')) this.rooms.clear();
      else if (event.type === 'agent.removed') this.agents.clear();
    }
  }
}
