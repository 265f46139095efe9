// The memory backend: plain maps and arrays, nothing kept across restarts. It is also the
// reference for what each write op means; the sqlite backend must behave the same way
// (test/store.test.ts runs one suite against both).

import type { Artifact, Message } from '../../protocol/types.js';
import { paginate, UnknownCursor } from '../../protocol/pagination.js';
import {
  StoreError,
  convKeyOf,
  type AgentRecord,
  type ArtifactFilter,
  type DmRecord,
  type MessageRecord,
  type PageQuery,
  type PageResult,
  type RoomRecord,
  type SearchQuery,
  type Store,
  type StoreStats,
  type StoredEvent,
  type ThreadRecord,
  type WriteOp,
  type WriteResult,
} from '../types.js';
import { MemorySearch } from './search.js';

const clone = <T>(v: T): T => structuredClone(v);

export class MemoryStore implements Store {
  readonly backend = 'memory' as const;
  private rooms = new Map<string, RoomRecord>();
  private agents = new Map<string, AgentRecord>();
  private messages = new Map<string, MessageRecord>();
  private convs = new Map<string, Message[]>();
  private threads = new Map<string, ThreadRecord>();
  private threadsByRoom = new Map<string, ThreadRecord[]>();
  private dms = new Map<string, DmRecord>();
  private artifacts: Artifact[] = [];
  private events: StoredEvent[] = [];
  private seq = 0;
  private closed = false;
  private readonly search = new MemorySearch();

  async write(ops: WriteOp[]): Promise<WriteResult> {
    if (this.closed) throw new StoreError('unavailable', 'store is closed');
    return this.apply(ops);
  }

  /** Applies a batch synchronously. Validation happens before any mutation, so a batch is atomic. */
  apply(ops: WriteOp[]): WriteResult {
    for (const op of ops) {
      if (op.op === 'message.insert' && this.messages.has(op.record.message.id)) {
        throw new StoreError('conflict', `message ${op.record.message.id} exists`);
      }
    }
    const event_seqs: number[] = [];
    for (const op of ops) {
      switch (op.op) {
        case 'room.put':
          this.rooms.set(op.room.id, clone(op.room));
          break;
        case 'agent.put':
          this.agents.set(op.agent.id, clone(op.agent));
          break;
        case 'agent.delete':
          this.agents.delete(op.id);
          break;
        case 'message.insert': {
          const rec = clone(op.record);
          this.messages.set(rec.message.id, rec);
          let list = this.convs.get(rec.conv);
          if (!list) this.convs.set(rec.conv, (list = []));
          list.push(rec.message);
          this.search.add(rec.message);
          break;
        }
        case 'thread.put': {
          const t = clone(op.thread);
          const existing = this.threads.get(t.id);
          this.threads.set(t.id, t);
          let list = this.threadsByRoom.get(t.room_id);
          if (!list) this.threadsByRoom.set(t.room_id, (list = []));
          if (existing) list[list.findIndex((x) => x.id === t.id)] = t;
          else list.push(t);
          break;
        }
        case 'dm.put':
          this.dms.set(op.dm.id, clone(op.dm));
          break;
        case 'artifact.insert':
          this.artifacts.push(clone(op.artifact));
          break;
        case 'event.append': {
          this.seq += 1;
          this.events.push({ seq: this.seq, event: clone(op.event) });
          event_seqs.push(this.seq);
          break;
        }
      }
    }
    return { event_seqs };
  }

  async sync(): Promise<void> {}

  ping(): boolean {
    return !this.closed;
  }

  stats(): StoreStats {
    return { backend: 'memory', messages: this.messages.size, events: this.events.length, last_event_seq: this.seq };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  getRoom(id: string): RoomRecord | undefined {
    const r = this.rooms.get(id);
    return r && clone(r);
  }

  listRooms(): RoomRecord[] {
    return [...this.rooms.values()].filter((r) => !r.removed_at).map(clone);
  }

  getAgent(id: string): AgentRecord | undefined {
    const a = this.agents.get(id);
    return a && clone(a);
  }

  listAgents(): AgentRecord[] {
    return [...this.agents.values()].map(clone);
  }

  findAgentsByCredential(credentialKey: string): AgentRecord[] {
    return this.listAgents().filter((a) => a.credential_key === credentialKey);
  }

  getMessage(id: string): MessageRecord | undefined {
    const m = this.messages.get(id);
    return m && clone(m);
  }

  listMessages(conv: string, q: PageQuery): PageResult<Message> {
    return cursorPage(this.convs.get(conv) ?? [], (m) => m.id, q);
  }

  getThread(id: string): ThreadRecord | undefined {
    const t = this.threads.get(id);
    return t && clone(t);
  }

  listThreads(roomId: string, q: PageQuery): PageResult<ThreadRecord> {
    return cursorPage(this.threadsByRoom.get(roomId) ?? [], (t) => t.id, q);
  }

  getDm(id: string): DmRecord | undefined {
    const d = this.dms.get(id);
    return d && clone(d);
  }

  listDms(): DmRecord[] {
    return [...this.dms.values()].map(clone);
  }

  listArtifacts(filter: ArtifactFilter, q: PageQuery): PageResult<Artifact> {
    const matching = this.artifacts.filter((a) => artifactMatches(a, filter));
    return cursorPage(matching, (a) => a.id, q);
  }

  async searchMessages(q: SearchQuery): Promise<PageResult<Message>> {
    return this.search.search(q);
  }

  eventsAfter(seq: number, limit: number): StoredEvent[] {
    // Seqs are dense from 1, so the event with seq s sits at index s - 1.
    return this.events.slice(Math.max(0, seq), Math.max(0, seq) + limit).map(clone);
  }

  lastEventSeq(): number {
    return this.seq;
  }
}

/** Whether an artifact belongs to every conversation named by the filter. */
export function artifactMatches(a: Artifact, f: ArtifactFilter): boolean {
  const t = a.target;
  if (f.room_id !== undefined && !((t.kind === 'room' || t.kind === 'thread') && t.room_id === f.room_id)) return false;
  if (f.thread_id !== undefined && !(t.kind === 'thread' && t.thread_id === f.thread_id)) return false;
  if (f.dm_id !== undefined && !(t.kind === 'dm' && t.dm_id === f.dm_id)) return false;
  return true;
}

function cursorPage<T>(items: readonly T[], idOf: (item: T) => string, q: PageQuery): PageResult<T> {
  try {
    const s = paginate(items, idOf, q);
    return { items: s.items.map(clone), has_more: s.has_more, has_older: s.has_older };
  } catch (err) {
    if (err instanceof UnknownCursor) throw new StoreError('unknown_cursor', err.message);
    throw err;
  }
}

export { convKeyOf };
