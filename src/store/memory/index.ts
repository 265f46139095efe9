// The memory backend: plain maps and arrays, nothing kept across restarts. Intents resolve against
// its maps (intents.ts) and their effects are applied here; the sqlite backend applies the same
// effects in SQL, and test/store*.test.ts runs one suite against both.

import type { Artifact, Message, MessageVersion } from '../../protocol/types.js';
import { resolveIntents, type Effect, type PartStates, type StateView } from '../intents.js';
import { LocalFeed } from '../local-feed.js';
import { LocalLeases } from '../local-leases.js';
import { MemoryKv } from '../kv/memory.js';
import { artifactMatches, cursorPage, dmMatches, roomMatches } from '../filters.js';
import {
  StoreError,
  type AgentRecord,
  type ArtifactFilter,
  type DmFilter,
  type DmRecord,
  type MessageRecord,
  type PageQuery,
  type PageResult,
  type PairingState,
  type AgentReadState,
  type RoomFilter,
  type RoomRecord,
  type SearchQuery,
  type Decide,
  type Store,
  type StoreStats,
  type StoredEvent,
  type ThreadRecord,
  type WriteOp,
  type WriteResult,
  type MemberQuery,
  type ExpiredQuery,
} from '../types.js';
import { expiredOf } from '../filters.js';
import { decideOnFreshReads } from '../decide.js';
import { MemorySearch } from './search.js';
import { ownerOf, type AnyPart, type MemoryAdapter, type MemoryCore, type ReadsOf } from '../part.js';
import { ALL_PARTS } from '../concerns.js';

const clone = <T>(v: T): T => structuredClone(v);

export class MemoryStore implements Store {
  readonly backend = 'memory';
  readonly feed: LocalFeed;
  readonly leases = new LocalLeases();
  readonly kv = new MemoryKv();
  private rooms = new Map<string, RoomRecord>();
  private agents = new Map<string, AgentRecord>();
  private messages = new Map<string, MessageRecord>();
  private convs = new Map<string, Message[]>();
  private threads = new Map<string, ThreadRecord>();
  private threadsByRoom = new Map<string, ThreadRecord[]>();
  private dms = new Map<string, DmRecord>();
  private artifacts: Artifact[] = [];
  private pairings = new Map<string, PairingState>();
  private readStates = new Map<string, AgentReadState>();
  /** The stored concerns this store keeps (part.ts), each with its records. */
  private readonly parts: Map<AnyPart, MemoryAdapter<unknown, unknown, unknown>>;
  /** By seq - 1; a purged message's events leave a hole (seqs are never given again). */
  private events: (StoredEvent | undefined)[] = [];
  /** The seqs of the events that hold each message (message.created, edited, deleted). */
  private eventsOfMessage = new Map<string, number[]>();
  private holes = 0;
  /** The seq of each message's `message.created` event. */
  private messageSeq = new Map<string, number>();
  /** Edited messages' earlier versions, oldest first. */
  private versions = new Map<string, MessageVersion[]>();
  private seq = 0;
  private closed = false;
  private readonly search = new MemorySearch();

  private readonly view: StateView = {
    room: (id) => this.rooms.get(id),
    rooms: () => [...this.rooms.values()].filter((r) => !r.removed_at),
    agent: (id) => this.agents.get(id),
    hasMessage: (id) => this.messages.has(id),
    message: (id) => this.messages.get(id),
    versions: (id) => this.versions.get(id) ?? [],
    thread: (id) => this.threads.get(id),
    dm: (id) => this.dms.get(id),
    pairing: (id) => this.pairings.get(id),
    readState: (id) => this.readStates.get(id),
  };

  private readonly partStates: PartStates;

  constructor(parts: readonly AnyPart[] = ALL_PARTS) {
    const core: MemoryCore = { createdBetween: (conv, after, before) => this.createdBetween(conv, after, before) };
    this.parts = new Map(parts.map((p) => [p, p.memory(core)]));
    this.partStates = { parts, state: (p) => this.parts.get(p)!.state };
    this.feed = new LocalFeed((after, limit) => this.eventsAfter(after, limit), 0);
  }

  decide<T>(decide: Decide<T>, write: (ops: WriteOp[]) => Promise<WriteResult>): Promise<T> {
    return decideOnFreshReads(this, decide, write);
  }

  async write(ops: WriteOp[]): Promise<WriteResult> {
    if (this.closed) throw new StoreError('unavailable', 'store is closed');
    const { effects, outcomes } = resolveIntents(this.view, ops, this.partStates);
    const events = this.apply(effects);
    this.feed.publish(events);
    return { outcomes: clone(outcomes), events };
  }

  /** Applies resolved effects; they cannot fail. */
  private apply(effects: Effect[]): StoredEvent[] {
    const events: StoredEvent[] = [];
    for (const e of effects) {
      switch (e.op) {
        case 'room.put':
          this.rooms.set(e.room.id, clone(e.room));
          break;
        case 'agent.put':
          this.agents.set(e.agent.id, clone(e.agent));
          break;
        case 'agent.delete':
          this.agents.delete(e.id);
          break;
        case 'message.insert': {
          const rec = clone(e.record);
          this.messages.set(rec.message.id, rec);
          let list = this.convs.get(rec.conv);
          if (!list) this.convs.set(rec.conv, (list = []));
          list.push(rec.message);
          this.search.add(rec.message);
          break;
        }
        case 'message.update': {
          const rec = clone(e.record);
          this.messages.set(rec.message.id, rec);
          const list = this.convs.get(rec.conv) ?? [];
          list[list.findIndex((m) => m.id === rec.message.id)] = rec.message;
          this.search.replace(rec.message);
          break;
        }
        case 'message.version': {
          const had = this.versions.get(e.message_id) ?? [];
          this.versions.set(e.message_id, [...had, clone(e.version)]);
          break;
        }
        case 'artifacts.clear':
          this.artifacts = this.artifacts.filter((a) => a.message_id !== e.message_id);
          break;
        case 'message.forget':
          this.forget(e.message_id);
          break;
        // Events hold messages by reference (the stored record): only the parts keep copies.
        case 'message.scrub':
          for (const adapter of this.parts.values()) adapter.scrub?.(e.message_id, clone(e.message));
          break;
        case 'message.purge': {
          this.forget(e.message_id);
          this.messages.delete(e.message_id);
          this.messageSeq.delete(e.message_id);
          const list = this.convs.get(e.conv);
          if (list)
            this.convs.set(
              e.conv,
              list.filter((m) => m.id !== e.message_id),
            );
          this.search.remove(e.message_id);
          for (const seq of this.eventsOfMessage.get(e.message_id) ?? []) {
            if (this.events[seq - 1]) this.holes++;
            this.events[seq - 1] = undefined;
          }
          this.eventsOfMessage.delete(e.message_id);
          break;
        }
        case 'thread.put': {
          const t = clone(e.thread);
          const existing = this.threads.get(t.id);
          this.threads.set(t.id, t);
          let list = this.threadsByRoom.get(t.room_id);
          if (!list) this.threadsByRoom.set(t.room_id, (list = []));
          if (existing) list[list.findIndex((x) => x.id === t.id)] = t;
          else list.push(t);
          break;
        }
        case 'dm.put':
          this.dms.set(e.dm.id, clone(e.dm));
          break;
        case 'artifact.insert':
          this.artifacts.push(clone(e.artifact));
          break;
        case 'event.append': {
          this.seq += 1;
          const stored = { seq: this.seq, event: clone(e.event) };
          this.events.push(stored);
          // Subscribers get the appended object itself (as before: no copy on the hot path).
          events.push({ seq: this.seq, event: e.event });
          const held = e.event.message?.id;
          if (held !== undefined) {
            if (e.event.type === 'message.created') this.messageSeq.set(held, this.seq);
            const seqs = this.eventsOfMessage.get(held);
            if (seqs) seqs.push(this.seq);
            else this.eventsOfMessage.set(held, [this.seq]);
          }
          break;
        }
        case 'pairing.put':
          this.pairings.set(e.pairing_id, { ...e.state });
          break;
        case 'pairing.delete':
          this.pairings.delete(e.pairing_id);
          break;
        case 'read_state.put':
          this.readStates.set(e.agent_id, clone(e.state));
          break;
        case 'read_state.delete':
          this.readStates.delete(e.agent_id);
          break;
        default: {
          const part = ownerOf(this.partStates.parts, e);
          if (!part) throw new StoreError('corrupt', `unknown effect ${JSON.stringify(e.op)}`);
          const adapter = this.parts.get(part)!;
          const dropped = adapter.replaces?.(e, this.seq);
          if (dropped !== undefined && this.events[dropped - 1]) {
            this.events[dropped - 1] = undefined;
            this.holes++;
          }
          adapter.apply(clone(e));
        }
      }
    }
    return events;
  }

  /** Whether a message of `conv` was created with an event seq strictly between `after` and `before` (newest first). */
  private createdBetween(conv: string, after: number, before: number): boolean {
    // A seq not given yet may still be a message's.
    if (before - 1 > this.seq) return true;
    const list = this.convs.get(conv) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const seq = this.messageSeq.get(list[i]!.id);
      if (seq === undefined) continue;
      if (seq <= after) return false;
      if (seq < before) return true;
    }
    return false;
  }

  /** Drops what a deleted or purged message leaves: artifacts, versions, and each part's records of it. */
  private forget(id: string): void {
    this.artifacts = this.artifacts.filter((a) => a.message_id !== id);
    this.versions.delete(id);
    for (const adapter of this.parts.values()) adapter.forget?.(id);
  }

  async sync(): Promise<void> {}

  async ping(): Promise<boolean> {
    return !this.closed;
  }

  async stats(): Promise<StoreStats> {
    return { backend: 'memory', messages: this.messages.size, events: this.events.length - this.holes, last_event_seq: this.seq };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  async getRoom(id: string): Promise<RoomRecord | undefined> {
    const r = this.rooms.get(id);
    return r && clone(r);
  }

  async listRooms(): Promise<RoomRecord[]> {
    return this.view.rooms().map(clone);
  }

  async pageRooms(filter: RoomFilter, q: PageQuery): Promise<PageResult<RoomRecord>> {
    return cursorPage(
      this.view.rooms().filter((r) => roomMatches(r, filter)),
      (r) => r.id,
      q,
    );
  }

  async conversationsWith(q: MemberQuery): Promise<{ rooms: RoomRecord[]; dms: DmRecord[] }> {
    // In memory a scan is what an index would be: nothing is parsed or copied but what matches.
    const rooms = this.view.rooms().filter((r) => r.members.some((m) => q.members.includes(m)));
    const dms = [...this.dms.values()].filter((d) => d.participant_ids.some((p) => q.participants.includes(p)));
    return { rooms: rooms.map(clone), dms: dms.map(clone) };
  }

  async getAgent(id: string): Promise<AgentRecord | undefined> {
    const a = this.agents.get(id);
    return a && clone(a);
  }

  async listAgents(): Promise<AgentRecord[]> {
    return [...this.agents.values()].map(clone);
  }

  async findAgentsByCredential(credentialKey: string): Promise<AgentRecord[]> {
    return [...this.agents.values()].filter((a) => a.credential_key === credentialKey).map(clone);
  }

  async getMessage(id: string): Promise<MessageRecord | undefined> {
    const m = this.messages.get(id);
    return m && clone(m);
  }

  async expiredMessages(q: ExpiredQuery): Promise<string[]> {
    return expiredOf(this.convs.get(q.conv) ?? [], q);
  }

  async messageVersions(id: string): Promise<MessageVersion[]> {
    return clone(this.versions.get(id) ?? []);
  }

  async listMessages(conv: string, q: PageQuery): Promise<PageResult<Message>> {
    return cursorPage(this.convs.get(conv) ?? [], (m) => m.id, q);
  }

  async getThread(id: string): Promise<ThreadRecord | undefined> {
    const t = this.threads.get(id);
    return t && clone(t);
  }

  async listThreads(roomId: string, q: PageQuery): Promise<PageResult<ThreadRecord>> {
    return cursorPage(this.threadsByRoom.get(roomId) ?? [], (t) => t.id, q);
  }

  async getDm(id: string): Promise<DmRecord | undefined> {
    const d = this.dms.get(id);
    return d && clone(d);
  }

  async listDms(): Promise<DmRecord[]> {
    return [...this.dms.values()].map(clone);
  }

  async pageDms(filter: DmFilter, q: PageQuery): Promise<PageResult<DmRecord>> {
    return cursorPage(
      [...this.dms.values()].filter((d) => dmMatches(d, filter)),
      (d) => d.id,
      q,
    );
  }

  async listArtifacts(filter: ArtifactFilter, q: PageQuery): Promise<PageResult<Artifact>> {
    const matching = this.artifacts.filter((a) => artifactMatches(a, filter));
    return cursorPage(matching, (a) => a.id, q);
  }

  async getPairingState(pairingId: string): Promise<PairingState | undefined> {
    const s = this.pairings.get(pairingId);
    return s && { ...s };
  }

  async getAgentReadState(agentId: string): Promise<AgentReadState | undefined> {
    const s = this.readStates.get(agentId);
    return s && clone(s);
  }

  part<P extends AnyPart>(p: P): ReadsOf<P> | undefined {
    return this.parts.get(p)?.reads as ReadsOf<P> | undefined;
  }

  async searchMessages(q: SearchQuery): Promise<PageResult<Message>> {
    return this.search.search(q);
  }

  async messageSeqs(ids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const id of ids) {
      const s = this.messageSeq.get(id);
      if (s !== undefined) out.set(id, s);
    }
    return out;
  }

  async eventsAfter(seq: number, limit: number): Promise<StoredEvent[]> {
    // The event with seq s sits at index s - 1; a purged message's events are holes.
    const out: StoredEvent[] = [];
    for (let i = Math.max(0, seq); i < this.events.length && out.length < limit; i++) {
      const e = this.events[i];
      if (e) out.push(clone(e));
    }
    return out;
  }

  async lastEventSeq(): Promise<number> {
    return this.seq;
  }
}
